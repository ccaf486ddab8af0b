"use client"

import { ConversionRecord } from "@/components/conversions/conversion-record"
import { ProblemAlert } from "@/components/ui/problem-alert"
import { useConversionQuery } from "@/lib/queries/conversions"

/** The conversion an approval placed, followed live until SETTLED or CANCELLED. */
export function PlacedConversionRecord({ id }: { id: string }) {
  const query = useConversionQuery(id)
  if (query.data) return <ConversionRecord conversion={query.data} heading="Conversion placed" />
  if (query.error) return <ProblemAlert error={query.error} />
  return <p className="text-sm text-slate-600">Loading the conversion…</p>
}
