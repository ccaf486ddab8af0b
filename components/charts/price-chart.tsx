"use client"

import { line } from "d3-shape"
import { useId } from "react"
import { formatTimestamp } from "@/components/ui/timestamp"
import { formatPrice } from "@/lib/format"
import { toDecimal } from "@/lib/money"

export interface ChartPoint {
  /** ms since the epoch */
  t: number
  /** The price as the service wrote it (a decimal string): shown as text exactly. */
  price: string
}

const W = 720
const H = 240
const PAD = { top: 12, right: 64, bottom: 24, left: 8 }

/**
 * A price line in SVG (d3-shape draws the path; the scales are two lines of arithmetic).
 * Prices become numbers only to place pixels; every figure a person reads is the service's
 * own string. The SVG is an image with a text summary; the points are in a table for
 * screen readers and on demand.
 */
export function PriceChart({
  points,
  marker,
  label,
  tick,
  testId,
}: {
  points: readonly ChartPoint[]
  marker?: { t: number; price: string; label: string } | null
  label: string
  /** The market's tick_rate from the service: it sets the decimals of the figures (lib/format). */
  tick?: string | undefined
  testId?: string
}) {
  const titleId = useId()
  if (points.length < 2) return <p className="text-sm text-slate-600">Not enough prices to draw yet.</p>
  const values = points.map((p) => Number(p.price))
  if (marker) values.push(Number(marker.price))
  const min = Math.min(...values)
  const max = Math.max(...values)
  const span = max - min || Math.abs(max) * 0.001 || 1
  const t0 = points[0]!.t
  const t1 = Math.max(points[points.length - 1]!.t, marker?.t ?? 0)
  const x = (t: number) => PAD.left + ((t - t0) / (t1 - t0 || 1)) * (W - PAD.left - PAD.right)
  const y = (v: number) => PAD.top + (1 - (v - min) / span) * (H - PAD.top - PAD.bottom)
  const path = line<ChartPoint>()
    .x((p) => x(p.t))
    .y((p) => y(Number(p.price)))(points as ChartPoint[])
  const first = points[0]!
  const last = points[points.length - 1]!
  // Which price is the low, the high, and the direction: decided in decimals, like any amount.
  const low = points.reduce((a, b) => (toDecimal(b.price).lt(toDecimal(a.price)) ? b : a))
  const high = points.reduce((a, b) => (toDecimal(b.price).gt(toDecimal(a.price)) ? b : a))
  // Every figure through the one formatter, with the market's tick decimals (the axis too).
  const like = last.price
  const summary = `${label}: from ${formatPrice(first.price, { like, tick, round: true })} at ${formatTimestamp(new Date(first.t).toISOString())} to ${formatPrice(last.price, { like, tick, round: true })} now; low ${formatPrice(low.price, { like, tick, round: true })}, high ${formatPrice(high.price, { like, tick, round: true })}.`
  const rising = toDecimal(last.price).gte(toDecimal(first.price))
  return (
    <figure className="space-y-2" data-testid={testId}>
      <svg viewBox={`0 0 ${W} ${H}`} className="h-auto w-full" role="img" aria-labelledby={titleId} data-points={points.length}>
        <title id={titleId}>{summary}</title>
        {[0, 0.5, 1].map((f) => {
          const v = min + f * span
          return (
            <g key={f}>
              <line x1={PAD.left} x2={W - PAD.right} y1={y(v)} y2={y(v)} className="stroke-slate-200" strokeWidth={1} />
              <text x={W - PAD.right + 6} y={y(v) + 4} className="fill-slate-600 text-[11px] tabular" data-num={f === 0.5 ? undefined : "axis-price"}>
                {f === 0 ? formatPrice(low.price, { like, tick, round: true }) : f === 1 ? formatPrice(high.price, { like, tick, round: true }) : ""}
              </text>
            </g>
          )
        })}
        <path d={path ?? ""} fill="none" strokeWidth={2} className={rising ? "stroke-emerald-600" : "stroke-red-600"} />
        <circle cx={x(last.t)} cy={y(Number(last.price))} r={3.5} className="fill-blue-600" />
        {marker ? (
          <g data-testid="chart-marker">
            <line x1={x(marker.t)} x2={x(marker.t)} y1={PAD.top} y2={H - PAD.bottom} className="stroke-amber-500" strokeDasharray="4 3" />
            <circle cx={x(marker.t)} cy={y(Number(marker.price))} r={5} className="fill-amber-500 stroke-white" strokeWidth={1.5} />
            <text x={Math.min(x(marker.t) + 6, W - PAD.right - 90)} y={PAD.top + 12} className="fill-amber-700 text-[11px] font-semibold">
              {marker.label}
            </text>
          </g>
        ) : null}
        <text x={PAD.left} y={H - 6} className="fill-slate-600 text-[11px]">
          {formatTimestamp(new Date(first.t).toISOString())}
        </text>
        <text x={W - PAD.right} y={H - 6} textAnchor="end" className="fill-slate-600 text-[11px]">
          {formatTimestamp(new Date(last.t).toISOString())}
        </text>
      </svg>
      <figcaption className="text-sm text-slate-700">{summary}</figcaption>
    </figure>
  )
}
