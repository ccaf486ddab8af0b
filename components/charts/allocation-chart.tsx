"use client"

import { arc, pie } from "d3-shape"
import { useId } from "react"
import { sliceColour } from "@/components/charts/palette"

export interface Slice {
  asset: string
  /** USD value, as a decimal string with 2 decimals. */
  value: string
  /** Share of the total in percent (1 decimal), as text. */
  share: string
}

/**
 * Allocation by asset as a donut (d3-shape's pie and arc), in a fixed 12 rem square so
 * its arrival moves nothing. Values become numbers only for the angles; the legend beside
 * it (AllocationLegend, loaded with the page) shows the USD strings and shares as text.
 */
export function AllocationDonut({ slices }: { slices: readonly Slice[] }) {
  const titleId = useId()
  const arcs = pie<Slice>()
    .value((s) => Number(s.value))
    .sort(null)([...slices])
  const draw = arc<(typeof arcs)[number]>().innerRadius(56).outerRadius(96).padAngle(0.01)
  const summary = `Allocation by asset: ${slices.map((s) => `${s.asset} ${s.share}%`).join(", ")}.`
  return (
    <svg viewBox="-100 -100 200 200" className="h-48 w-48" role="img" aria-labelledby={titleId}>
      <title id={titleId}>{summary}</title>
      {arcs.map((a, i) => (
        <path key={a.data.asset} d={draw(a) ?? ""} fill={sliceColour(i)} data-asset={a.data.asset} />
      ))}
    </svg>
  )
}
