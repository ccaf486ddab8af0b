"use client"

import Link from "next/link"
import { useRouter } from "next/navigation"
import { chooseProfile } from "@/lib/queries/profiles"

/** Where a record leads: its profile's executions, the other executions of its quote. */
export function RecordLinks({ profileId, quoteId }: { profileId?: string | undefined; quoteId?: string | undefined }) {
  const router = useRouter()
  if (!profileId && !quoteId) return null
  return (
    <nav aria-label="Related" className="flex flex-wrap gap-x-4 gap-y-1 text-sm">
      {profileId ? (
        <Link
          href="/executions"
          className="text-blue-800 underline"
          data-testid="profile-link"
          onClick={(e) => {
            e.preventDefault()
            chooseProfile(profileId)
            router.push("/executions")
          }}
        >
          This profile&apos;s executions
        </Link>
      ) : null}
      {quoteId ? (
        <Link href={`/search?q=${encodeURIComponent(quoteId)}`} className="text-blue-800 underline" data-testid="quote-link">
          Executions of this quote
        </Link>
      ) : null}
    </nav>
  )
}
