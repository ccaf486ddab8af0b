import { Decimal, toDecimal, tryDecimal } from "@/lib/money"
import { SEED_MARKETS } from "@/lib/schemas/assets"
import type { MarketPrice } from "@/lib/schemas/market-data"
import type { Quote } from "@/lib/schemas/records"

/** One market of the desk's price grid: its held quotes and, for USD markets, the 24 h prices. */
export interface MarketRow {
  market: string
  buy: Quote | undefined
  sell: Quote | undefined
  price: MarketPrice | undefined
}

/**
 * The grid's rows: the seed markets in their order, then any other market the service
 * quotes, each with its BUY (ask) and SELL (bid) quote and its 24 h prices when known.
 */
export function marketRows(quotes: readonly Quote[], quotedMarkets: readonly string[], prices: readonly MarketPrice[]): MarketRow[] {
  const markets = [...SEED_MARKETS, ...[...quotedMarkets, ...quotes.map((q) => q.market)].filter((m) => !(SEED_MARKETS as readonly string[]).includes(m)).sort()]
  return [...new Set(markets)].map((market) => ({
    market,
    buy: quotes.find((q) => q.market === market && q.side === "BUY"),
    sell: quotes.find((q) => q.market === market && q.side === "SELL"),
    price: prices.find((p) => p.market === market),
  }))
}

/** Ask minus bid, and the same in basis points of the mid (1 decimal); null without both sides. */
export function spreadOf(row: Pick<MarketRow, "buy" | "sell">): { amount: string; bps: string } | null {
  const ask = tryDecimal(row.buy?.price)
  const bid = tryDecimal(row.sell?.price)
  if (!ask || !bid) return null
  const amount = ask.minus(bid)
  const mid = ask.plus(bid).div(2)
  if (mid.lte(0)) return null
  return { amount: amount.toString(), bps: amount.div(mid).times(10_000).toDecimalPlaces(1, Decimal.ROUND_HALF_EVEN).toFixed(1) }
}

/** The 24 h change in percent, 2 decimals ("-0.45"); null when the market has no 24 h prices. */
export function changeOf(row: Pick<MarketRow, "price">): string | null {
  if (!row.price) return null
  const now = toDecimal(row.price.current_price)
  const then = toDecimal(row.price.yesterday_price)
  if (then.lte(0)) return null
  const change = now.minus(then).div(then).times(100).toDecimalPlaces(2, Decimal.ROUND_HALF_EVEN)
  return change.isZero() ? "0.00" : change.toFixed(2)
}
