import { Decimal, tryDecimal } from "@/lib/money"
import { assetDecimals } from "@/lib/schemas/assets"

/**
 * The console's one number formatter: every amount, price, percentage, chart axis, table
 * cell, title and CSV field a person reads goes through here. Pure string work on
 * decimal strings (never a JS number for money), the same on the server and in the browser.
 *
 * Rules (docs/pages.md#numbers; e2e/number-format.spec.ts checks every page against them):
 * - on screen, thousands separators ("2,487,371.39") and a fixed number of decimals:
 *   - an amount has its asset's decimals: 2 for fiat (USD, EUR, SGD), 8 for crypto and
 *     stablecoins, the precision the service accepts for that asset;
 *   - a conversion's amount has 2 decimals, the service's precision for every pair;
 *   - a price has its market's tick decimals: from the service's `tick_rate` for the market
 *     (GET /v2/markets, "0.01" → 2) where the market is known, otherwise by the price's
 *     size as the service sets ticks: 2 from 100 up, 4 from 1 up, 6 below; a derived price
 *     (an average, a mid, an axis label) is rounded to them, a price the service charged
 *     or held is padded to them and never rounded;
 *   - a percentage has 2 decimals (an allocation share 1);
 * - an amount is never rounded: a value with more decimals than its asset allows is shown
 *   with all of them (it should not happen; hiding digits would be worse);
 * - in CSV, plain decimals: no separators, the same fixed decimals.
 * What is not a decimal string is shown unchanged.
 */

type Value = string | Decimal | null | undefined

function decimalOf(value: Value): Decimal | null {
  if (value === null || value === undefined) return null
  return typeof value === "string" ? tryDecimal(value) : value
}

/** Groups the whole part of a plain fixed-point string in threes. */
function group(fixed: string): string {
  const negative = fixed.startsWith("-")
  const [whole = "0", fraction] = (negative ? fixed.slice(1) : fixed).split(".")
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",")
  const sign = negative && /[1-9]/.test(fixed) ? "-" : ""
  return fraction === undefined ? `${sign}${grouped}` : `${sign}${grouped}.${fraction}`
}

/** `places` decimals, but never fewer than the value's own non-zero ones (an amount is not rounded). */
function padded(d: Decimal, places: number): string {
  return d.toFixed(Math.max(places, d.decimalPlaces()))
}

/** Decimals as written: "1.50" has 2 (for an amount whose asset is not known). */
function written(value: Value): number {
  if (typeof value !== "string") return 0
  const trimmed = value.trim()
  const dot = trimmed.indexOf(".")
  return dot === -1 ? 0 : trimmed.length - dot - 1
}

/** Decimals of a price: the market's tick, 2 from 100 up, 4 from 1 up, 6 below (by `like` when given, e.g. a spread by its ask). */
export function priceDecimals(price: Decimal): number {
  const size = price.abs()
  if (size.gte(100)) return 2
  if (size.gte(1)) return 4
  return 6
}

/**
 * The decimals of a market's `tick_rate` ("0.01" → 2, "0.000001" → 6, "1" → 0, "0.25" → 2);
 * null when there is none or it is not a positive decimal (the price's size decides then).
 */
export function tickDecimals(tick: Value): number | null {
  const d = decimalOf(tick)
  if (d === null || d.lte(0)) return null
  return d.decimalPlaces()
}

/** A conversion's amount: 2 decimals for every pair (the service's precision), stablecoins too. */
export const CONVERSION_DECIMALS = 2

/**
 * An amount of `asset`: "2,487,371.39" USD, "639.99900000" ETH; of an unknown asset, its
 * own decimals; `places` for an amount with its own precision (a conversion's, 2).
 */
export function formatAmount(value: Value, asset: string | null | undefined, places?: number): string {
  const d = decimalOf(value)
  if (d === null) return typeof value === "string" ? value : "—"
  return group(padded(d, places ?? (asset ? assetDecimals(asset) : written(value))))
}

/** A USD value (totals, notionals, limits). */
export function formatUsd(value: Value): string {
  return formatAmount(value, "USD")
}

/**
 * A price: grouped, with its tick decimals. A held or charged price is padded to them and
 * never rounded; `round` rounds a derived one (an average, a mid, a ticker) half-even.
 * `tick` is the market's `tick_rate` from the service, which sets the decimals when known;
 * without it `like` gives the magnitude that picks them (a spread or a chart's axis takes
 * its market's price); `decimals` sets them outright.
 */
export function formatPrice(value: Value, options: { like?: Value; tick?: Value; decimals?: number; round?: boolean } = {}): string {
  const d = decimalOf(value)
  if (d === null) return typeof value === "string" ? value : "—"
  const places = priceDecimalsFor(d, options)
  return group(options.round ? d.toFixed(places, Decimal.ROUND_HALF_EVEN) : padded(d, places))
}

function priceDecimalsFor(d: Decimal, options: { like?: Value; tick?: Value; decimals?: number }): number {
  if (options.decimals !== undefined) return options.decimals
  return tickDecimals(options.tick) ?? priceDecimals(decimalOf(options.like) ?? d)
}

/** A percentage with `places` decimals (2 unless said), "+" before a rise when `signed`. */
export function formatPercent(value: Value, options: { places?: number; signed?: boolean } = {}): string {
  const d = decimalOf(value)
  if (d === null) return typeof value === "string" ? value : "—"
  const fixed = d.toFixed(options.places ?? 2, Decimal.ROUND_HALF_EVEN)
  const text = group(fixed)
  return options.signed && d.gt(0) && /[1-9]/.test(fixed) ? `+${text}` : text
}

/** A count: "1,204". */
export function formatCount(value: number): string {
  return Number.isSafeInteger(value) ? group(String(value)) : String(value)
}

/**
 * One value of the approval policy as its diff shows it (the policy page's pending change,
 * the audit table, an intent's page): `field` is its dotted path (lib/schemas/policy-diff.ts).
 * An amount in a currency with separators and its currency's decimals ("50,000.00"); the
 * tolerance as a percentage ("0.5 %"); the expiry in minutes ("1,440 minutes"); a count of
 * approvers ("2"); roles as listed; null (not set) as "not set".
 */
export function formatPolicyValue(field: string, value: string | null): string {
  if (value === null) return "not set"
  const last = field.slice(field.lastIndexOf(".") + 1)
  if (field === "price_tolerance_percent") return `${formatPercent(value, { places: written(value) })} %`
  if (field === "request_ttl_minutes") {
    const minutes = Number(value)
    return Number.isSafeInteger(minutes) ? `${formatCount(minutes)} ${minutes === 1 ? "minute" : "minutes"}` : value
  }
  if (/^approval_tiers\.\d+\.approvers$/.test(field)) {
    const approvers = Number(value)
    return Number.isSafeInteger(approvers) ? formatCount(approvers) : value
  }
  // Thresholds, tier starts, step-up and retype sizes, limits: the path ends in the currency.
  if (/^[A-Z]{3,5}$/.test(last) && decimalOf(value) !== null) return formatAmount(value, last, 2)
  return value
}

/** A chart axis or drawing value that was a JS number (never money arithmetic): as a price like `like`. */
export function formatAxisPrice(value: number, like: Value, tick?: Value): string {
  if (!Number.isFinite(value)) return "—"
  return formatPrice(new Decimal(value.toPrecision(15)), { like, tick, round: true })
}

/** An amount in CSV: plain, its asset's decimals, no separators ("12000.00", "0.00100000"). */
export function csvAmount(value: string | null | undefined, asset: string | null | undefined, places?: number): string {
  if (value === null || value === undefined) return ""
  const d = tryDecimal(value)
  if (d === null) return value
  return padded(d, places ?? (asset ? assetDecimals(asset) : 0))
}

/** A price in CSV: plain, exactly as the service wrote it (a held price is on its tick already). */
export function csvPrice(value: string | null | undefined): string {
  if (value === null || value === undefined) return ""
  const d = tryDecimal(value)
  return d === null ? value : d.toFixed(Math.max(d.decimalPlaces(), 2))
}

/** A number with commas between groups of three, as the console shows it. */
const GROUPED = /^-?\d{1,3}(,\d{3})+(\.\d*)?$/

/**
 * What a person typed or pasted into an amount field, as a plain decimal string the
 * schemas understand: "2,487,371.39" → "2487371.39", " 12.5 " → "12.5". A comma that
 * is not a thousands separator ("1,5", "12,34,567") is left for the field's own rule to
 * refuse, never guessed at.
 */
export function normaliseAmountInput(text: string): string {
  const trimmed = text.trim()
  return GROUPED.test(trimmed) ? trimmed.replace(/,/g, "") : trimmed
}
