import { formatPercent, formatUsd } from "@/lib/format"
import { toDecimal } from "@/lib/money"
import type { TotalHistory } from "@/lib/schemas/overview"

const W = 240
const H = 48

/**
 * The total's change since the UTC day's open (today's holdings at the open's prices), with
 * its sign in words, and the last 24 hours as a small line with the open marked. The line
 * is drawn from numbers (pixels only); every figure read is a decimal string formatted by
 * lib/format.
 */
export function TotalTrend({ history }: { history: TotalHistory }) {
  const change = toDecimal(history.change_usd)
  const direction = change.gt(0) ? "up" : change.lt(0) ? "down" : "flat"
  const tone = direction === "up" ? "text-emerald-700" : direction === "down" ? "text-red-700" : "text-slate-700"
  const stroke = direction === "up" ? "stroke-emerald-600" : direction === "down" ? "stroke-red-600" : "stroke-slate-500"
  const values = history.points.map((p) => Number(p.total_usd))
  const times = history.points.map((p) => Date.parse(p.t))
  const open = Number(history.open_usd)
  const min = Math.min(...values, open)
  const span = Math.max(...values, open) - min || 1
  const t0 = times[0] ?? 0
  const t1 = times[times.length - 1] ?? 1
  const x = (t: number) => ((t - t0) / (t1 - t0 || 1)) * W
  const y = (v: number) => H - 2 - ((v - min) / span) * (H - 4)
  const points = values.map((v, i) => `${x(times[i] ?? t0).toFixed(1)},${y(v).toFixed(1)}`).join(" ")
  const openX = x(Date.parse(history.opened_at))
  const sign = direction === "up" ? "+" : ""
  return (
    <div className="mt-2" data-testid="total-change" data-direction={direction}>
      <p className={`tabular text-sm font-medium ${tone}`}>
        <span aria-hidden>{direction === "up" ? "▲ " : direction === "down" ? "▼ " : ""}</span>
        {sign}
        {formatUsd(history.change_usd)} USD
        {history.change_percent !== null ? ` (${formatPercent(history.change_percent, { signed: true })} %)` : null}{" "}
        <span className="font-normal text-slate-600">since the UTC day&apos;s open</span>
        <span className="sr-only">{direction === "up" ? ", up" : direction === "down" ? ", down" : ", unchanged"}</span>
      </p>
      {history.points.length >= 2 ? (
        <svg viewBox={`0 0 ${W} ${H}`} className="mt-1 h-12 w-full max-w-60" aria-hidden data-testid="total-sparkline" preserveAspectRatio="none">
          {openX >= 0 && openX <= W ? <line x1={openX} x2={openX} y1={0} y2={H} className="stroke-slate-300" strokeDasharray="3 3" /> : null}
          <line x1={0} x2={W} y1={y(open)} y2={y(open)} className="stroke-slate-200" strokeWidth={1} />
          <polyline points={points} fill="none" strokeWidth={1.5} className={stroke} vectorEffect="non-scaling-stroke" />
        </svg>
      ) : null}
      <p className="text-xs text-slate-600">Last 24 hours of today&apos;s holdings; the dashed line is the UTC day&apos;s open.</p>
    </div>
  )
}
