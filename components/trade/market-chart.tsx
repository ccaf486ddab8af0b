"use client"

import dynamic from "next/dynamic"
import { useMemo, useState } from "react"
import type { ChartPoint } from "@/components/charts/price-chart"
import { Card } from "@/components/ui/card"
import { ProblemAlert } from "@/components/ui/problem-alert"
import { Table, TableBody, TableHead, Td, Th, Tr } from "@/components/ui/table"
import { Timestamp } from "@/components/ui/timestamp"
import { formatPrice } from "@/lib/format"
import { toDecimal } from "@/lib/money"
import { useMarketHistoryQuery, useTickRate } from "@/lib/queries/market-data"
import { useAllQuotesQuery } from "@/lib/queries/quotes"
import { CHART_RANGE_NAMES, type ChartRange } from "@/lib/schemas/market-data"
import type { Quote } from "@/lib/schemas/records"

const PriceChart = dynamic(() => import("@/components/charts/price-chart").then((m) => m.PriceChart), {
  ssr: false,
  loading: () => <p className="text-sm text-slate-600">Drawing the chart…</p>,
})

const RANGE_LABEL: Record<ChartRange, string> = { "1h": "1 h", "24h": "24 h", "7d": "7 d", "30d": "30 d" }
/** Live mids kept for the chart: an hour at one a second. */
const LIVE_MAX = 3600

/**
 * The selected market's price: the service's history for the range, then the held quotes'
 * mids as they arrive (the price grid's own query, so no extra calls), and the quote being
 * reviewed marked on it.
 */
export function MarketChart({ market, reviewing }: { market: string; reviewing: Quote | null }) {
  const [range, setRange] = useState<ChartRange>("24h")
  const history = useMarketHistoryQuery(market, range)
  const quotes = useAllQuotesQuery()
  const [live, setLive] = useState<{ market: string; seen: string; points: ChartPoint[] }>({ market, seen: "", points: [] })

  // Each new answer of the board's quotes adds its mid (state adjusted while rendering, as React advises for derived data).
  const buy = quotes.data?.items.find((q) => q.market === market && q.side === "BUY")
  const sell = quotes.data?.items.find((q) => q.market === market && q.side === "SELL")
  const fetchedAt = quotes.data?.fetched_at
  if (buy && sell && fetchedAt && live.seen !== `${market}|${fetchedAt}`) {
    const point = { t: Date.parse(fetchedAt), price: toDecimal(buy.price).plus(toDecimal(sell.price)).div(2).toString() }
    const kept = live.market === market ? live.points.filter((p) => p.t < point.t) : []
    setLive({ market, seen: `${market}|${fetchedAt}`, points: [...kept, point].slice(-LIVE_MAX) })
  }

  const points = useMemo(() => {
    const past = (history.data?.market === market ? history.data.items : []).map((p) => ({ t: Date.parse(p.timestamp), price: p.average_price }))
    const lastT = past.length > 0 ? past[past.length - 1]!.t : 0
    const fresh = live.market === market ? live.points.filter((p) => p.t > lastT) : []
    return [...past, ...fresh]
  }, [history.data, live, market])

  const tick = useTickRate(market)
  const marker =
    reviewing && reviewing.market === market
      ? { t: Date.parse(reviewing.created_at), price: reviewing.price, label: `Reviewing ${reviewing.side} ${formatPrice(reviewing.price, { tick })}` }
      : null

  return (
    <Card
      title={`${market} price`}
      actions={
        <div role="group" aria-label="Chart range" className="flex gap-1">
          {CHART_RANGE_NAMES.map((r) => (
            <button
              key={r}
              type="button"
              aria-pressed={r === range}
              onClick={() => setRange(r)}
              className={
                r === range
                  ? "rounded bg-blue-600 px-2 py-1 text-xs font-semibold text-white"
                  : "rounded px-2 py-1 text-xs font-semibold text-slate-700 ring-1 ring-inset ring-slate-300 hover:bg-slate-100"
              }
            >
              {RANGE_LABEL[r]}
            </button>
          ))}
        </div>
      }
    >
      {history.error && !history.data ? <ProblemAlert error={history.error} /> : null}
      {history.isPending ? (
        <p className="text-sm text-slate-600">Loading prices…</p>
      ) : (
        <div data-testid="price-chart-panel" data-range={range} data-market={market}>
          <PriceChart points={points} marker={marker} label={`${market} over ${RANGE_LABEL[range]}`} tick={tick} testId="price-chart" />
          <PricesTable points={points} tick={tick} caption={`${market} prices over ${RANGE_LABEL[range]}`} />
        </div>
      )}
    </Card>
  )
}

/**
 * The chart's points as a table, for reading exact prices and for screen readers. Its rows
 * are built only while it is open: a day is ~300 rows, and the live price adds one every
 * second, so a closed table re-rendering each time would slow typing on the ticket.
 */
function PricesTable({ points, tick, caption }: { points: readonly ChartPoint[]; tick: string | undefined; caption: string }) {
  const [open, setOpen] = useState(false)
  return (
    <details className="mt-2" onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary className="cursor-pointer text-sm text-blue-700 underline">Show prices as a table</summary>
      {open ? (
        <Table caption={caption} density="compact" className="mt-2 max-h-72 overflow-y-auto">
          <TableHead>
            <Th>Time</Th>
            <Th align="right">Price</Th>
          </TableHead>
          <TableBody>
            {[...points].reverse().map((p) => (
              <Tr key={p.t}>
                <Td>
                  <Timestamp value={new Date(p.t).toISOString()} />
                </Td>
                <Td align="right" className="tabular">
                  {formatPrice(p.price, { like: points[points.length - 1]?.price, tick, round: true })}
                </Td>
              </Tr>
            ))}
          </TableBody>
        </Table>
      ) : null}
    </details>
  )
}
