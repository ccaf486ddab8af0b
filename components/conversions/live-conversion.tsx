"use client"

import type { Ref } from "react"
import { RefreshProblem } from "@/components/ui/problem-alert"
import { useConversionQuery } from "@/lib/queries/conversions"
import { conversionKeys, profileKeys } from "@/lib/queries/keys"
import { useRefreshWhenEnded } from "@/lib/queries/settle"
import type { Conversion } from "@/lib/schemas/records"
import { ConversionRecord } from "./conversion-record"

/** A conversion followed live: polled every second until it ends (SETTLED, CANCELLED, COMPLETED or FAILED). */
export function LiveConversion({ initial, heading, headingRef }: { initial: Conversion; heading?: string; headingRef?: Ref<HTMLHeadingElement> }) {
  const query = useConversionQuery(initial.id, { initialData: initial })
  const conversion = query.data ?? initial
  // Once it ends, the balances and the conversion lists show it at once.
  const lists = [...conversionKeys.all, "list"]
  useRefreshWhenEnded(conversion.status, conversion.profile_id ? [profileKeys.balances(conversion.profile_id), lists] : [lists])
  return (
    <div className="space-y-2">
      <ConversionRecord conversion={conversion} {...(heading === undefined ? {} : { heading })} {...(headingRef === undefined ? {} : { headingRef })} />
      <RefreshProblem error={query.error} />
    </div>
  )
}
