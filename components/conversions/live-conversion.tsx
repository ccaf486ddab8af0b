"use client"

import type { Ref } from "react"
import { describeError } from "@/components/ui/problem-alert"
import { useConversionQuery } from "@/lib/queries/conversions"
import type { Conversion } from "@/lib/schemas/records"
import { ConversionRecord } from "./conversion-record"

/** A conversion followed live: polled every second until it ends (SETTLED, CANCELLED, COMPLETED or FAILED). */
export function LiveConversion({ initial, heading, headingRef }: { initial: Conversion; heading?: string; headingRef?: Ref<HTMLHeadingElement> }) {
  const query = useConversionQuery(initial.id, { initialData: initial })
  const conversion = query.data ?? initial
  return (
    <div className="space-y-2">
      <ConversionRecord conversion={conversion} {...(heading === undefined ? {} : { heading })} {...(headingRef === undefined ? {} : { headingRef })} />
      {query.error ? (
        <p role="status" className="text-sm text-amber-900">
          Could not refresh the status just now ({describeError(query.error).title.toLowerCase()}); still trying.
        </p>
      ) : null}
    </div>
  )
}
