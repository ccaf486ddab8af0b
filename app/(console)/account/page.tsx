import type { Metadata } from "next"
import { Passkeys } from "@/components/account/passkeys"
import { currentStaff } from "@/lib/auth/session"
import { env } from "@/lib/env"

export const metadata: Metadata = { title: "Account" }
export const dynamic = "force-dynamic"

export default async function AccountPage() {
  const staff = await currentStaff()
  if (!staff) return null
  return (
    <div className="max-w-3xl space-y-6">
      <div>
        <h1 className="text-2xl font-semibold">Account</h1>
        <p className="mt-1 text-sm text-slate-700">
          Signed in as <span className="font-medium">{staff.email}</span> ({staff.role}).
        </p>
      </div>
      <Passkeys stepUp={env().stepUp} />
    </div>
  )
}
