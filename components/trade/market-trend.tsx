"use client"

import { useMemo } from "react"
import { TREND_SIZE } from "@/components/trade/trend-size"
import { useMarketHistoryQuery } from "@/lib/queries/market-data"

const { width: WIDTH, height: HEIGHT } = TREND_SIZE

/**
 * A market's 24 h price as a small line (loaded after the grid's first paint). It repeats
 * the change column for the eye, so screen readers skip it; the line's colour is the 24 h
 * change's sign (`direction`, from the same prices as the change column), never a second
 * opinion from the line's own ends; without it, the line's ends decide.
 */
export function MarketTrend({ market, direction }: { market: string; direction?: "up" | "down" | "flat" | undefined }) {
  // The server caches histories for 10 s; a trend line needs far less.
  const history = useMarketHistoryQuery(market, "24h", { refetchInterval: 60_000, staleTime: 60_000 })
  const line = useMemo(() => {
    const items = history.data?.market === market ? history.data.items : []
    // Numbers only for drawing: no money is computed from them.
    const prices = items.map((p) => Number(p.average_price)).filter((p) => Number.isFinite(p))
    if (prices.length < 2) return null
    const min = Math.min(...prices)
    const span = Math.max(...prices) - min || 1
    const step = WIDTH / (prices.length - 1)
    const points = prices.map((p, i) => `${(i * step).toFixed(1)},${(HEIGHT - 1 - ((p - min) / span) * (HEIGHT - 2)).toFixed(1)}`).join(" ")
    return { points, direction: direction ?? (prices[prices.length - 1]! >= prices[0]! ? "up" : "down") }
  }, [history.data, market, direction])
  if (!line) return <span className="block" style={{ width: WIDTH, height: HEIGHT }} aria-hidden />
  return (
    <svg width={WIDTH} height={HEIGHT} viewBox={`0 0 ${WIDTH} ${HEIGHT}`} aria-hidden data-testid={`trend-${market}`} data-direction={line.direction} className="block">
      <polyline
        points={line.points}
        fill="none"
        strokeWidth="1.25"
        className={line.direction === "up" ? "stroke-emerald-600" : line.direction === "down" ? "stroke-red-600" : "stroke-slate-500"}
      />
    </svg>
  )
}
