import "server-only"
import type { MarketDataCache } from "@/lib/console/market-data"
import { type Decimal, toDecimal } from "@/lib/money"
import { type HistoricalPrice, PRICE_MARKETS } from "@/lib/schemas/market-data"
import type { TotalHistory } from "@/lib/schemas/overview"

/** Points of the overview's small line: the last 24 hours, at most this many. */
const MAX_POINTS = 96
const DAY_MS = 86_400_000

/** The last price at or before `t` (the first one when `t` is earlier than all). */
function priceAt(items: readonly { t: number; price: Decimal }[], t: number): Decimal | null {
  let found: Decimal | null = items[0]?.price ?? null
  for (const item of items) {
    if (item.t > t) break
    found = item.price
  }
  return found
}

/**
 * What today's holdings were worth over the last 24 hours, and at the UTC day's open, from
 * the service's 24 h price history of each held asset's USD market (the same cached
 * histories the desk's charts read): the change since open is what the market did to what
 * is held now; deposits and trades during the day move the total, not the change. An asset
 * without a USD market (USD itself, EUR, SGD, stablecoins without one) counts at its
 * current price throughout. Null when no held asset has a history to draw.
 */
export async function totalHistory(deps: {
  marketData: Pick<MarketDataCache, "history">
  holdings: ReadonlyMap<string, Decimal>
  prices: ReadonlyMap<string, Decimal>
  total: Decimal
  now: Date
}): Promise<TotalHistory | null> {
  const assets = [...deps.holdings].filter(([asset, amount]) => !amount.isZero() && deps.prices.has(asset))
  const series = await Promise.all(
    assets.map(async ([asset, amount]) => {
      const market = `${asset}USD`
      if (!PRICE_MARKETS.includes(market)) return { amount, items: null, current: deps.prices.get(asset)! }
      const items: readonly HistoricalPrice[] | null = await deps.marketData
        .history(market, "24h")
        .then((h) => h.items)
        .catch(() => null)
      const parsed = items?.map((p) => ({ t: Date.parse(p.timestamp), price: toDecimal(p.average_price) })).filter((p) => Number.isFinite(p.t))
      return { amount, items: parsed && parsed.length > 0 ? parsed : null, current: deps.prices.get(asset)! }
    }),
  )
  const timeline = series.find((s) => s.items !== null)?.items
  if (!timeline) return null
  const valueAt = (t: number) =>
    series.reduce((sum, s) => sum.plus(s.amount.mul((s.items ? priceAt(s.items, t) : null) ?? s.current)), toDecimal("0"))
  const step = Math.max(1, Math.ceil(timeline.length / MAX_POINTS))
  const points = timeline
    .filter((_, i) => i % step === 0)
    .map((p) => ({ t: new Date(p.t).toISOString(), total_usd: valueAt(p.t).toFixed(2) }))
  // The line ends at the total shown beside it.
  points.push({ t: deps.now.toISOString(), total_usd: deps.total.toFixed(2) })
  const openedAt = new Date(Math.floor(deps.now.getTime() / DAY_MS) * DAY_MS)
  const open = valueAt(openedAt.getTime())
  const change = deps.total.minus(open)
  return {
    opened_at: openedAt.toISOString(),
    open_usd: open.toFixed(2),
    change_usd: change.toFixed(2),
    change_percent: open.isZero() ? null : change.div(open).mul(100).toFixed(2),
    points,
  }
}
