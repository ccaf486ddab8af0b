import { z } from "zod"
import { SEED_MARKETS } from "@/lib/schemas/assets"
import { dateTimeSchema } from "@/lib/schemas/common"
import { decimalString, marketSchema } from "@/lib/schemas/records"

/**
 * The service's market-data operations (GET /v2/markets, /v2/markets/{market}/ticker,
 * /v2/all-markets/ticker, /v2/all-markets/prices, /v2/markets/{market}/historical-prices)
 * and the console's chart ranges. Written from the service's OpenAPI components
 * (ListMarketsResponse, TickerRecord, ListTickersResponse, ListPricesResponse,
 * ListHistoricalPricesResponse): where its examples disagree with its schemas, the schemas win.
 */



export const marketDetailsSchema = z.object({
  market: marketSchema,
  base_asset: z.string(),
  quote_asset: z.string(),
  tick_rate: decimalString,
})
export const listMarketsResponseSchema = z.object({ markets: z.array(marketDetailsSchema) })

const bookLevelSchema = z.object({ price: decimalString, amount: decimalString })
const exchangeStatsSchema = z.object({
  high: decimalString,
  low: decimalString,
  open: decimalString,
  volume: decimalString,
  volume_weighted_average_price: decimalString.optional(),
  range: z.object({ begin: dateTimeSchema, end: dateTimeSchema }).optional(),
})
export const tickerSchema = z.object({
  market: marketSchema,
  best_bid: bookLevelSchema,
  best_ask: bookLevelSchema,
  last_execution: bookLevelSchema.optional(),
  last_day: exchangeStatsSchema,
  today: exchangeStatsSchema,
  snapshot_at: dateTimeSchema,
})
export type Ticker = z.infer<typeof tickerSchema>
export const listTickersResponseSchema = z.object({ tickers: z.array(tickerSchema) })

export const marketPriceSchema = z.object({
  market: marketSchema,
  current_price: decimalString,
  yesterday_price: decimalString,
  snapshot_at: dateTimeSchema,
})
export type MarketPrice = z.infer<typeof marketPriceSchema>
export const listPricesResponseSchema = z.object({ items: z.array(marketPriceSchema) })

export const historicalPriceSchema = z.object({ timestamp: dateTimeSchema, average_price: decimalString })
export type HistoricalPrice = z.infer<typeof historicalPriceSchema>
export const listHistoricalPricesResponseSchema = z.object({
  total_count: z.number().int().min(0),
  items: z.array(historicalPriceSchema),
})

/** The `increment` enum of List Historical Prices, with each increment's length in seconds. */
export const HISTORY_INCREMENTS = {
  ONE_MINUTE: 60,
  FIVE_MINUTES: 300,
  FIFTEEN_MINUTES: 900,
  THIRTY_MINUTES: 1800,
  ONE_HOUR: 3600,
  TWO_HOURS: 7200,
  TWELVE_HOURS: 43_200,
  ONE_DAY: 86_400,
  ONE_WEEK: 604_800,
  TWO_WEEKS: 1_209_600,
  FOUR_WEEKS: 2_419_200,
} as const
export type HistoryIncrement = keyof typeof HISTORY_INCREMENTS
export const HISTORY_INCREMENT_NAMES = Object.keys(HISTORY_INCREMENTS) as HistoryIncrement[]

/** `pagination.limit`: 100 when omitted, at most 1,000. */
export const HISTORY_DEFAULT_LIMIT = 100
export const HISTORY_MAX_LIMIT = 1000

/** The markets List Prices takes (its `markets` enum): the USD markets, which are exactly the seed markets quoted in USD. */
export const PRICE_MARKETS: readonly string[] = SEED_MARKETS.filter((m) => m.endsWith("USD"))

/**
 * The console's chart ranges: how far back, and the `max_data_points` asked for. Each is
 * the range's count at the wanted increment (1 h by the minute, 24 h by 5 minutes, 7 d by
 * the hour, 30 d by 2 hours) plus 2: the range's start is a moment before the service's
 * now, and the last point is the current mid.
 */
export const CHART_RANGES = {
  "1h": { seconds: 3600, points: 62 },
  "24h": { seconds: 86_400, points: 290 },
  "7d": { seconds: 604_800, points: 170 },
  "30d": { seconds: 2_592_000, points: 362 },
} as const
export type ChartRange = keyof typeof CHART_RANGES
export const CHART_RANGE_NAMES = Object.keys(CHART_RANGES) as ChartRange[]
export const chartRangeSchema = z.enum(CHART_RANGE_NAMES as [ChartRange, ...ChartRange[]], {
  error: `must be one of ${CHART_RANGE_NAMES.join(", ")}`,
})

/** GET /api/markets/{market}/history: the service's points for one chart range. */
export const marketHistorySchema = z.object({
  market: marketSchema,
  range: chartRangeSchema,
  items: z.array(historicalPriceSchema),
  fetched_at: dateTimeSchema,
  stale: z.boolean(),
})
export type MarketHistory = z.infer<typeof marketHistorySchema>

/** GET /api/markets/prices: current and 24-hours-ago prices of the USD markets. */
export const marketPricesSchema = z.object({
  items: z.array(marketPriceSchema),
  /** Each market's tick_rate from the service ("0.01"); empty when it did not answer. */
  tick_rates: z.record(z.string(), decimalString).default({}),
  fetched_at: dateTimeSchema,
  stale: z.boolean(),
})
export type MarketPrices = z.infer<typeof marketPricesSchema>
