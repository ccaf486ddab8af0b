import { sliceColour } from "@/components/charts/palette"
import type { Slice } from "@/components/charts/allocation-chart"
import { formatPercent, formatUsd } from "@/lib/format"

/** The donut's legend: each asset's share and USD value as text, in the donut's colours. */
export function AllocationLegend({ slices }: { slices: readonly Slice[] }) {
  return (
    <ul className="space-y-1 text-sm" aria-label="Allocation by asset">
      {slices.map((s, i) => (
        <li key={s.asset} className="flex items-center gap-2">
          <span aria-hidden="true" className="inline-block h-3 w-3 rounded-sm" style={{ background: sliceColour(i) }} />
          <span className="w-14 font-semibold">{s.asset}</span>
          <span className="tabular w-14 text-right">{formatPercent(s.share, { places: 1 })} %</span>
          <span className="tabular text-slate-600">${formatUsd(s.value)}</span>
        </li>
      ))}
    </ul>
  )
}
