import Link from "next/link"
import type { ReactNode } from "react"

/** A conversion page's heading, under the way back to the list; `children` says more below it. */
export function ConversionPageHeading({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div>
      <Link href="/conversions" className="text-sm text-blue-800 underline">
        ← Conversions
      </Link>
      <h1 className="mt-1 text-2xl font-semibold">{title}</h1>
      {children}
    </div>
  )
}
