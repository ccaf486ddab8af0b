import "server-only"
import { type Decimal, roundDown, roundUp, toDecimal } from "@/lib/money"
import { SEED_MARKETS, parseMarket } from "@/lib/schemas/assets"
import { normalDraw } from "@/lib/sandbox/random"

/**
 * Sandbox prices: each asset's USD mid follows a seeded, mean-reverting random walk
 * (Ornstein–Uhlenbeck in log space) around a realistic reference, one step per second.
 * EUR and SGD walk too, so ETHEUR, BTCSGD … are crosses of the USD mids. BUY quotes sit
 * above the mid and SELL quotes below it by a per-asset half spread.
 */

interface AssetPricing {
  /** Centre of the walk, USD. */
  refUsd: string
  /** Volatility of the log price per second. */
  sigma: number
  /** BUY = mid × (1 + halfSpread), SELL = mid × (1 − halfSpread). */
  halfSpread: string
}

export const ASSET_PRICING: Readonly<Record<string, AssetPricing>> = {
  USD: { refUsd: "1", sigma: 0, halfSpread: "0" },
  EUR: { refUsd: "1.16", sigma: 0.00003, halfSpread: "0" },
  SGD: { refUsd: "0.77", sigma: 0.00003, halfSpread: "0" },
  BTC: { refUsd: "95000", sigma: 0.0004, halfSpread: "0.001" },
  ETH: { refUsd: "3200", sigma: 0.0005, halfSpread: "0.001" },
  PAXG: { refUsd: "4050", sigma: 0.0001, halfSpread: "0.0015" },
  BCH: { refUsd: "520", sigma: 0.0006, halfSpread: "0.0025" },
  LTC: { refUsd: "95", sigma: 0.0006, halfSpread: "0.0025" },
  USDP: { refUsd: "1", sigma: 0.00001, halfSpread: "0.0001" },
  LINK: { refUsd: "14.5", sigma: 0.0007, halfSpread: "0.0025" },
  MATIC: { refUsd: "0.22", sigma: 0.0008, halfSpread: "0.003" },
  AAVE: { refUsd: "190", sigma: 0.0007, halfSpread: "0.0025" },
  UNI: { refUsd: "7.5", sigma: 0.0007, halfSpread: "0.0025" },
}

/** Mean reversion per second: deviations halve in about 20 minutes. */
const THETA = 1 / 1800

/**
 * Fixed reference rates (USD per unit) for the per-execution maximum, which is stated
 * in USD: an EUR or SGD amount is converted at these rates, not at the moving mids, so
 * the limit does not wobble with the market.
 */
export const USD_REFERENCE_RATES: Readonly<Record<string, string>> = { USD: "1", EUR: "1.16", SGD: "0.77" }

/**
 * The Rejected rule: executing a quote whose market mid has since moved by more than
 * this fraction (either way) is refused with 403 Rejected. Ordinary drift stays far
 * below it (a few tenths of a percent over a quote's life); an admin market move
 * (POST /sandbox/admin/market-moves) is the way to trip it on purpose.
 */
export const REJECT_THRESHOLD = "0.10"

export const SANDBOX_MARKETS: readonly string[] = SEED_MARKETS

export function isSandboxMarket(market: string): boolean {
  return SANDBOX_MARKETS.includes(market)
}

export function marketAssets(market: string): { base: string; quote: string } {
  const parsed = parseMarket(market)
  if (!parsed) throw new RangeError(`not a market: ${market}`)
  return parsed
}

export function referenceUsd(asset: string): Decimal {
  const pricing = ASSET_PRICING[asset]
  if (!pricing) throw new RangeError(`no reference price for ${asset}`)
  return toDecimal(pricing.refUsd)
}

/**
 * Steps an asset's USD mid from second `fromSlot` to second `toSlot` with the exact
 * discretisation of the walk, so skipping idle seconds costs one step. The noise is a
 * hash of (seed, asset, toSlot): two processes stepping the same state agree.
 */
export function stepMid(asset: string, midUsd: Decimal, fromSlot: number, toSlot: number, seed: number): Decimal {
  const pricing = ASSET_PRICING[asset]
  if (!pricing || pricing.sigma === 0 || toSlot <= fromSlot) return midUsd
  const ref = toDecimal(pricing.refUsd)
  const k = toSlot - fromSlot
  const decay = Math.exp(-THETA * k)
  const spread = pricing.sigma * Math.sqrt((1 - Math.exp(-2 * THETA * k)) / (2 * THETA))
  const noise = spread * normalDraw("price", seed, asset, toSlot)
  const deviation = midUsd.div(ref).ln()
  const next = deviation.mul(toDecimal(decay.toFixed(15))).plus(toDecimal(noise.toFixed(15)))
  return ref.mul(next.exp()).toSignificantDigits(12)
}

/** Price decimals by magnitude: 2 from 100 up, 4 from 1 up, 6 below. */
export function priceDecimals(mid: Decimal): number {
  if (mid.gte(100)) return 2
  if (mid.gte(1)) return 4
  return 6
}

interface MarketPrices {
  mid: Decimal
  buy: Decimal
  sell: Decimal
}

/** The mid of `market` in its quote currency, from the USD mids of its two assets. */
export function marketMid(market: string, midsUsd: ReadonlyMap<string, Decimal>): Decimal {
  const { base, quote } = marketAssets(market)
  const baseUsd = midsUsd.get(base)
  const quoteUsd = quote === "USD" ? toDecimal("1") : midsUsd.get(quote)
  if (!baseUsd || !quoteUsd) throw new RangeError(`no mid for ${market}`)
  return baseUsd.div(quoteUsd)
}

/**
 * The decimals of a market's tick (its `tick_rate` in GET /v2/markets): fixed per market,
 * set by the size of its reference price (LTCUSD at 95 quotes to 0.0001 even above 100),
 * as the service keeps a market's tick whatever its price does.
 */
export function marketTickPlaces(market: string): number {
  const { base, quote } = marketAssets(market)
  return priceDecimals(referenceUsd(base).div(referenceUsd(quote)))
}

/** BUY rounds up and SELL rounds down to the market's tick, so BUY > mid > SELL. */
export function marketPrices(market: string, midsUsd: ReadonlyMap<string, Decimal>): MarketPrices {
  const { base } = marketAssets(market)
  const mid = marketMid(market, midsUsd)
  const half = toDecimal(ASSET_PRICING[base]?.halfSpread ?? "0.002")
  const places = marketTickPlaces(market)
  const buy = roundUp(mid.mul(half.plus(1)), places)
  let sell = roundDown(mid.mul(toDecimal("1").minus(half)), places)
  if (sell.gte(buy)) sell = buy.minus(toDecimal("1").div(10 ** places))
  return { mid: mid.toSignificantDigits(18), buy, sell }
}

/** Whether the market moved too far from the quote's mid for the quote to hold. */
export function movedTooFar(quoteMid: Decimal, currentMid: Decimal): boolean {
  return currentMid.div(quoteMid).minus(1).abs().gt(toDecimal(REJECT_THRESHOLD))
}

/** A USD amount's value for the maxima; null when the asset has no fixed rate. */
export function usdValue(asset: string, amount: Decimal): Decimal | null {
  const rate = USD_REFERENCE_RATES[asset]
  return rate === undefined ? null : amount.mul(toDecimal(rate))
}

/**
 * The walk's past: an asset's log deviation at second `t`, a deterministic function of
 * (seed, asset, t) so any point of the last 90 days costs a few draws, never a replay of
 * every second. Layers of smoothly interpolated normal draws, from minutes to weeks, each
 * scaled by the walk's stationary spread (σ / √(2θ)), give its look: small noise minute to
 * minute, swings of a few spreads over days, pulled back to the reference over weeks.
 */
export function historyDeviation(asset: string, t: number, seed: number): number {
  const pricing = ASSET_PRICING[asset]
  if (!pricing || pricing.sigma === 0) return 0
  const stationary = pricing.sigma / Math.sqrt(2 * THETA)
  let sum = 0
  for (const [spacing, weight] of HISTORY_LAYERS) {
    const i = Math.floor(t / spacing)
    const f = t / spacing - i
    const smooth = f * f * (3 - 2 * f)
    const a = layerDraw(seed, asset, spacing, i)
    const b = layerDraw(seed, asset, spacing, i + 1)
    sum += weight * (a + (b - a) * smooth)
  }
  return stationary * sum
}

/** [spacing in seconds, weight in stationary spreads] of the history's layers. */
const HISTORY_LAYERS: readonly (readonly [number, number])[] = [
  [60, 0.12],
  [900, 0.3],
  [3600, 0.5],
  [21_600, 0.8],
  [86_400, 1.2],
  [604_800, 1.5],
]

const layerCache = new Map<string, number>()
function layerDraw(seed: number, asset: string, spacing: number, i: number): number {
  const key = `${seed}|${asset}|${spacing}|${i}`
  let value = layerCache.get(key)
  if (value === undefined) {
    // Bounded: a long-running sandbox draws new points as time passes.
    if (layerCache.size > 200_000) layerCache.clear()
    value = normalDraw("history", seed, asset, spacing, i)
    layerCache.set(key, value)
  }
  return value
}
