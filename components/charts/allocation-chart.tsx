"use client"

import { arc, pie } from "d3-shape"
import { useId } from "react"
import { formatAmount } from "@/lib/money"

export interface Slice {
  asset: string
  /** USD value, as a decimal string with 2 decimals. */
  value: string
  /** Share of the total in percent (1 decimal), as text. */
  share: string
}

// Distinct on light and dark backgrounds; the legend names each slice, so colour is never the only cue.
const COLOURS = ["#2563eb", "#16a34a", "#d97706", "#9333ea", "#dc2626", "#0891b2", "#65a30d", "#db2777", "#64748b", "#ca8a04"]

/**
 * Allocation by asset as a donut (d3-shape's pie and arc). Values become numbers only for
 * the angles; the legend shows the USD strings and shares exactly as the server wrote them.
 */
export function AllocationChart({ slices, testId }: { slices: readonly Slice[]; testId?: string }) {
  const titleId = useId()
  const shown = slices.filter((s) => Number(s.value) > 0)
  if (shown.length === 0) return <p className="text-sm text-slate-600">No holdings with a price yet.</p>
  const arcs = pie<Slice>()
    .value((s) => Number(s.value))
    .sort(null)(shown)
  const draw = arc<(typeof arcs)[number]>().innerRadius(56).outerRadius(96).padAngle(0.01)
  const summary = `Allocation by asset: ${shown.map((s) => `${s.asset} ${s.share}%`).join(", ")}.`
  return (
    <figure className="flex flex-wrap items-center gap-6" data-testid={testId}>
      <svg viewBox="-100 -100 200 200" className="h-48 w-48 shrink-0" role="img" aria-labelledby={titleId}>
        <title id={titleId}>{summary}</title>
        {arcs.map((a, i) => (
          <path key={a.data.asset} d={draw(a) ?? ""} fill={COLOURS[i % COLOURS.length]} data-asset={a.data.asset} />
        ))}
      </svg>
      <figcaption>
        <ul className="space-y-1 text-sm" aria-label="Allocation by asset">
          {shown.map((s, i) => (
            <li key={s.asset} className="flex items-center gap-2">
              <span aria-hidden="true" className="inline-block h-3 w-3 rounded-sm" style={{ background: COLOURS[i % COLOURS.length] }} />
              <span className="w-14 font-semibold">{s.asset}</span>
              <span className="tabular w-14 text-right">{s.share}%</span>
              <span className="tabular text-slate-600">${formatAmount(s.value)}</span>
            </li>
          ))}
        </ul>
      </figcaption>
    </figure>
  )
}
