import "server-only"
import { type Decimal, toDecimal } from "@/lib/money"
import { badRequest } from "@/lib/sandbox/problems"
import { SEED_MARKETS } from "@/lib/schemas/assets"
import {
  HISTORY_DEFAULT_LIMIT,
  HISTORY_INCREMENTS,
  HISTORY_INCREMENT_NAMES,
  HISTORY_MAX_LIMIT,
  type HistoryIncrement,
  PRICE_MARKETS,
} from "@/lib/schemas/market-data"
import { timestamp } from "@/lib/sandbox/format"
import { historyDeviation, marketAssets, marketTickPlaces, priceDecimals } from "@/lib/sandbox/pricing"
import type { QuoteBook } from "@/lib/sandbox/quotes"
import { unitDraw } from "@/lib/sandbox/random"

/** The history reaches back this far; a `range.begin` before it starts at its first point. */
export const HISTORY_DAYS = 90
const HISTORY_MS = HISTORY_DAYS * 86_400_000
const DAY_MS = 86_400_000
/** Samples per increment averaged into its time-weighted `average_price`. */
const SAMPLES = 4

interface HistoryQuery {
  market: string
  increment: HistoryIncrement | null
  maxDataPoints: number | null
  begin: Date | null
  end: Date | null
  limit: number
  offset: number
}

/**
 * The service's market-data operations over the sandbox's price walk. The past is the
 * walk's deterministic history for the seed (`historyDeviation`), anchored so that it
 * ends at the mid of the quotes held right now: a chart's last point and the quote a
 * trader reviews agree, and the same seed and clock give the same history on every run.
 */
export class MarketData {
  constructor(
    private readonly quotes: QuoteBook,
    private readonly now: () => Date,
    private readonly seed: () => Promise<number>,
  ) {}

  markets() {
    return {
      markets: SEED_MARKETS.map((market) => {
        const { base, quote } = marketAssets(market)
        return { market, base_asset: base, quote_asset: quote, tick_rate: tickRate(market) }
      }),
    }
  }

  /** Parses List Historical Prices' query; every bad combination is a 400 naming the parameter. */
  parseHistoryQuery(market: string, url: URL): HistoryQuery {
    const fields: Record<string, string> = {}
    if (!isKnownMarket(market)) fields.market = `unknown market ${market}; markets are ${SEED_MARKETS.join(", ")}`
    const one = (name: string) => {
      const values = url.searchParams.getAll(name)
      if (values.length > 1) fields[name] = "may be given once"
      return values[0] ?? null
    }
    const incrementRaw = one("increment")
    const maxRaw = one("max_data_points")
    let increment: HistoryIncrement | null = null
    if (incrementRaw !== null) {
      if ((HISTORY_INCREMENT_NAMES as string[]).includes(incrementRaw)) increment = incrementRaw as HistoryIncrement
      else fields.increment = `must be one of ${HISTORY_INCREMENT_NAMES.join(", ")}`
    }
    const maxDataPoints = maxRaw === null ? null : positiveInteger(maxRaw, "max_data_points", fields, 1, Number.MAX_SAFE_INTEGER)
    if (incrementRaw !== null && maxRaw !== null) {
      fields.increment = "give either increment or max_data_points, not both"
      fields.max_data_points = "give either increment or max_data_points, not both"
    } else if (incrementRaw === null && maxRaw === null) {
      fields.increment = "give either increment or max_data_points"
      fields.max_data_points = "give either increment or max_data_points"
    }
    const begin = dateParam(one("range.begin"), "range.begin", fields)
    const end = dateParam(one("range.end"), "range.end", fields)
    if (begin && end && begin.getTime() > end.getTime()) fields["range.begin"] = "must not be after range.end"
    const limitRaw = one("pagination.limit")
    const offsetRaw = one("pagination.offset")
    const limit = limitRaw === null ? HISTORY_DEFAULT_LIMIT : positiveInteger(limitRaw, "pagination.limit", fields, 1, HISTORY_MAX_LIMIT)
    const offset = offsetRaw === null ? 0 : positiveInteger(offsetRaw, "pagination.offset", fields, 0, 2_147_483_647)
    if (Object.keys(fields).length > 0) throw badRequest(fields)
    return { market, increment, maxDataPoints, begin, end, limit: limit ?? HISTORY_DEFAULT_LIMIT, offset: offset ?? 0 }
  }

  /**
   * List Historical Prices: one point per whole increment from `range.begin` (at most
   * 90 days back), each the time-weighted average over its increment, ascending. Without
   * `range.end`, the last point is the current mid at the request's time.
   */
  async history(q: HistoryQuery) {
    const nowMs = this.now().getTime()
    const anchor = await this.anchor(q.market)
    const earliest = nowMs - HISTORY_MS
    const beginMs = Math.max(q.begin?.getTime() ?? earliest, earliest)
    const endMs = Math.min(q.end?.getTime() ?? nowMs, nowMs)
    const incrementS = q.increment ? HISTORY_INCREMENTS[q.increment] : pickIncrement(beginMs, endMs, q.maxDataPoints ?? 1)
    const stepMs = incrementS * 1000
    const first = Math.ceil(beginMs / stepMs) * stepMs
    // Only whole increments have an average; the one under way has none yet.
    const lastStart = Math.floor((endMs - stepMs) / stepMs) * stepMs
    const whole = beginMs <= endMs && lastStart >= first ? (lastStart - first) / stepMs + 1 : 0
    const withNow = q.end === null && beginMs <= nowMs
    const total = whole + (withNow ? 1 : 0)
    const items: { timestamp: string; average_price: string }[] = []
    for (let i = q.offset; i < Math.min(total, q.offset + q.limit); i++) {
      if (i < whole) {
        const start = first + i * stepMs
        items.push({ timestamp: timestamp(new Date(start)), average_price: fmt(anchor, average(anchor, start, stepMs)) })
      } else {
        items.push({ timestamp: timestamp(new Date(nowMs)), average_price: fmt(anchor, anchor.mid) })
      }
    }
    return { total_count: total, items }
  }

  /** Get Ticker: best bid and ask are the held SELL and BUY quotes; day statistics from the history. */
  async ticker(market: string) {
    if (!isKnownMarket(market)) throw badRequest({ market: `unknown market ${market}; markets are ${SEED_MARKETS.join(", ")}` })
    const anchor = await this.anchor(market)
    const nowMs = this.now().getTime()
    const midnight = Math.floor(nowMs / DAY_MS) * DAY_MS
    const depth = (side: string) => toDecimal(unitDraw("depth", anchor.seed, market, side, Math.floor(nowMs / 1000)).toFixed(8)).mul(5).toFixed(8)
    return {
      market,
      best_bid: { price: anchor.sell, amount: depth("bid") },
      best_ask: { price: anchor.buy, amount: depth("ask") },
      last_day: this.stats(market, anchor, nowMs - DAY_MS, nowMs),
      today: this.stats(market, anchor, midnight, nowMs),
      snapshot_at: timestamp(new Date(nowMs)),
    }
  }

  async tickers() {
    const tickers = []
    for (const market of SEED_MARKETS) tickers.push(await this.ticker(market))
    return { tickers }
  }

  /** List Prices: the current mid and the one-minute average 24 hours ago. */
  async prices(markets: readonly string[]) {
    const fields: Record<string, string> = {}
    if (markets.length === 0) fields.markets = "is required"
    const unknown = markets.filter((m) => !(PRICE_MARKETS).includes(m))
    if (unknown.length > 0) fields.markets = `unknown market ${unknown.join(", ")}; markets are ${PRICE_MARKETS.join(", ")}`
    if (Object.keys(fields).length > 0) throw badRequest(fields)
    const nowMs = this.now().getTime()
    const minute = 60_000
    const yesterday = Math.floor((nowMs - DAY_MS) / minute) * minute
    const items = []
    for (const market of [...new Set(markets)]) {
      const anchor = await this.anchor(market)
      items.push({
        market,
        current_price: fmt(anchor, anchor.mid),
        yesterday_price: fmt(anchor, average(anchor, yesterday, minute)),
        snapshot_at: timestamp(new Date(nowMs)),
      })
    }
    return { items }
  }

  private stats(market: string, anchor: Anchor, fromMs: number, toMs: number) {
    const stepMs = 300_000
    const values: Decimal[] = []
    for (let t = Math.ceil(fromMs / stepMs) * stepMs; t < toMs; t += stepMs) values.push(priceAt(anchor, t))
    values.push(anchor.mid)
    const open = values[0] ?? anchor.mid
    const high = values.reduce((a, b) => (b.gt(a) ? b : a), open)
    const low = values.reduce((a, b) => (b.lt(a) ? b : a), open)
    // Volume: a deterministic draw per market and day, scaled by how much of the range has passed.
    const volume = toDecimal(unitDraw("volume", anchor.seed, market, Math.floor(fromMs / DAY_MS)).toFixed(8))
      .mul(1000)
      .mul(toDecimal(((toMs - fromMs) / DAY_MS).toFixed(6)))
    return {
      high: fmt(anchor, high),
      low: fmt(anchor, low),
      open: fmt(anchor, open),
      volume: volume.toFixed(8),
      range: { begin: timestamp(new Date(fromMs)), end: timestamp(new Date(toMs)) },
    }
  }

  private async anchor(market: string): Promise<Anchor> {
    const rows = await this.quotes.current([market])
    const buy = rows.find((r) => r.side === "BUY")
    const sell = rows.find((r) => r.side === "SELL")
    if (!buy || !sell) throw new Error(`no quotes for ${market}`)
    const mid = toDecimal(buy.mid)
    const { base, quote } = marketAssets(market)
    const seed = await this.seed()
    const nowS = this.now().getTime() / 1000
    return {
      mid,
      buy: toDecimal(buy.price).toString(),
      sell: toDecimal(sell.price).toString(),
      places: priceDecimals(mid) + 2,
      seed,
      base,
      quote,
      nowS,
      deviationNow: historyDeviation(base, nowS, seed) - (quote === "USD" ? 0 : historyDeviation(quote, nowS, seed)),
    }
  }
}

interface Anchor {
  mid: Decimal
  buy: string
  sell: string
  places: number
  seed: number
  base: string
  quote: string
  nowS: number
  deviationNow: number
}

/** Two more decimals than the market's quotes, so a chart shows movement inside a tick. */
function fmt(anchor: Anchor, value: Decimal): string {
  return value.toFixed(anchor.places)
}

/** The market's price at `ms`: the current mid moved by the walk's log deviation since then. */
function priceAt(a: Anchor, ms: number): Decimal {
  const s = ms / 1000
  if (s >= a.nowS) return a.mid
  const deviation = historyDeviation(a.base, s, a.seed) - (a.quote === "USD" ? 0 : historyDeviation(a.quote, s, a.seed))
  return a.mid.mul(toDecimal(Math.exp(deviation - a.deviationNow).toFixed(15)))
}

/** The time-weighted average over [startMs, startMs + lengthMs), from evenly spaced samples. */
function average(a: Anchor, startMs: number, lengthMs: number): Decimal {
  let sum = toDecimal("0")
  for (let k = 0; k < SAMPLES; k++) sum = sum.plus(priceAt(a, startMs + (lengthMs * (k + 0.5)) / SAMPLES))
  return sum.div(SAMPLES)
}

/** The most granular increment whose points over the range stay within `maxDataPoints`. */
export function pickIncrement(beginMs: number, endMs: number, maxDataPoints: number): number {
  const spanS = Math.max(0, endMs - beginMs) / 1000
  for (const name of HISTORY_INCREMENT_NAMES) {
    const seconds = HISTORY_INCREMENTS[name]
    if (Math.ceil(spanS / seconds) <= maxDataPoints) return seconds
  }
  return HISTORY_INCREMENTS.FOUR_WEEKS
}

function isKnownMarket(market: string): boolean {
  return (SEED_MARKETS as readonly string[]).includes(market)
}

function tickRate(market: string): string {
  const places = marketTickPlaces(market)
  return toDecimal("1").div(toDecimal("10").pow(places)).toFixed(places)
}

function positiveInteger(raw: string, name: string, fields: Record<string, string>, min: number, max: number): number | null {
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    fields[name] = max === Number.MAX_SAFE_INTEGER ? `must be a whole number of at least ${min}` : `must be a whole number from ${min} to ${max}`
    return null
  }
  return Number(raw)
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/

function dateParam(raw: string | null, name: string, fields: Record<string, string>): Date | null {
  if (raw === null) return null
  const ms = Date.parse(raw)
  if (!RFC3339.test(raw) || Number.isNaN(ms)) {
    fields[name] = "must be an RFC 3339 date-time, like 2006-01-02T15:04:05Z"
    return null
  }
  return new Date(ms)
}
