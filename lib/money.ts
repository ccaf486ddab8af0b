import DecimalJs from "decimal.js"

/**
 * The only place where strings become decimals. A private Decimal constructor keeps
 * plenty of precision and never switches to exponent notation, so `toString()` and
 * `toFixed()` always give plain decimal strings for the wire.
 */
export const Decimal = DecimalJs.clone({
  precision: 60,
  rounding: DecimalJs.ROUND_HALF_EVEN,
  toExpNeg: -60,
  toExpPos: 60,
})
export type Decimal = InstanceType<typeof Decimal>

/** Crypto amounts (base_amount) carry at most 8 decimals, fiat amounts at most 2. */
export const CRYPTO_DECIMALS = 8
export const FIAT_DECIMALS = 2

/** The service's pattern for an amount: digits with an optional single dot. */
const UNSIGNED_DECIMAL = /^[0-9]*\.?[0-9]+$/
/** Balances and prices may be signed in principle; we only ever read them. */
const SIGNED_DECIMAL = /^-?[0-9]*\.?[0-9]+$/

export function isUnsignedDecimalString(value: string): boolean {
  return UNSIGNED_DECIMAL.test(value)
}

/** Parses a decimal string from the wire. Throws on anything that is not one. */
export function toDecimal(value: string): Decimal {
  if (!SIGNED_DECIMAL.test(value)) {
    throw new TypeError(`not a decimal string: ${JSON.stringify(value.slice(0, 40))}`)
  }
  return new Decimal(value)
}

/** Parses or returns null: for forms, where a half-typed value is normal. */
export function tryDecimal(value: string | undefined | null): Decimal | null {
  if (value == null) return null
  const trimmed = value.trim()
  if (!SIGNED_DECIMAL.test(trimmed)) return null
  return new Decimal(trimmed)
}

/** Number of digits after the dot, as written (trailing zeros count: "1.50" has 2). */
export function decimalPlaces(value: string): number {
  const dot = value.indexOf(".")
  return dot === -1 ? 0 : value.length - dot - 1
}

export function roundUp(value: Decimal, places: number): Decimal {
  return value.toDecimalPlaces(places, Decimal.ROUND_UP)
}

export function roundDown(value: Decimal, places: number): Decimal {
  return value.toDecimalPlaces(places, Decimal.ROUND_DOWN)
}

/** A canonical wire string with exactly `places` decimals. */
export function toFixedString(value: Decimal, places: number): string {
  return value.toFixed(places)
}

export type Side = "BUY" | "SELL"

export interface ExecutionAmounts {
  base_amount: string
  quote_amount: string
}

/**
 * The other amount of an execution, from the held price, never rounded in the client's
 * favour beyond the quote:
 * - BUY by base: the fiat paid is base × price rounded up to 2 dp;
 * - BUY by quote: the crypto received is quote ÷ price rounded down to 8 dp;
 * - SELL by base: the fiat received is base × price rounded down to 2 dp;
 * - SELL by quote: the crypto sold is quote ÷ price rounded up to 8 dp.
 * The given amount is returned exactly as the client wrote its value, in canonical form.
 */
export function executionAmounts(input: {
  side: Side
  price: string
  base_amount?: string | undefined
  quote_amount?: string | undefined
}): ExecutionAmounts {
  const price = toDecimal(input.price)
  if (price.lte(0)) throw new RangeError("price must be more than 0")
  if (input.base_amount !== undefined) {
    const base = toDecimal(input.base_amount)
    const gross = base.mul(price)
    const quote = input.side === "BUY" ? roundUp(gross, FIAT_DECIMALS) : roundDown(gross, FIAT_DECIMALS)
    return {
      base_amount: toFixedString(base, CRYPTO_DECIMALS),
      quote_amount: toFixedString(quote, FIAT_DECIMALS),
    }
  }
  if (input.quote_amount !== undefined) {
    const quote = toDecimal(input.quote_amount)
    const gross = quote.div(price)
    const base = input.side === "BUY" ? roundDown(gross, CRYPTO_DECIMALS) : roundUp(gross, CRYPTO_DECIMALS)
    return {
      base_amount: toFixedString(base, CRYPTO_DECIMALS),
      quote_amount: toFixedString(quote, FIAT_DECIMALS),
    }
  }
  throw new TypeError("one of base_amount or quote_amount is required")
}

/** Two decimal strings denote the same amount ("1.5" and "1.50000000" do). */
export function sameAmount(a: string | undefined, b: string | undefined): boolean {
  if (a === undefined || b === undefined) return a === b
  const x = tryDecimal(a)
  const y = tryDecimal(b)
  return x !== null && y !== null && x.eq(y)
}

/**
 * Formats a decimal string for people: thousands separators, and at least `minPlaces`
 * decimals (never fewer than written, so nothing is rounded away). Pure string work.
 */
export function formatAmount(value: string, options: { minPlaces?: number; maxPlaces?: number } = {}): string {
  const d = tryDecimal(value)
  if (d === null) return value
  const written = decimalPlaces(d.toString())
  let places = Math.max(written, options.minPlaces ?? 0)
  if (options.maxPlaces !== undefined && places > options.maxPlaces) {
    places = Math.max(options.maxPlaces, options.minPlaces ?? 0)
  }
  const fixed = d.abs().toFixed(places, Decimal.ROUND_DOWN)
  const [whole = "0", fraction] = fixed.split(".")
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",")
  const sign = d.isNegative() && !d.isZero() ? "-" : ""
  return fraction === undefined ? `${sign}${grouped}` : `${sign}${grouped}.${fraction}`
}
