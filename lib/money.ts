import DecimalJs from "decimal.js"

/**
 * The only place where strings become decimals. A private Decimal constructor keeps
 * plenty of precision and never switches to exponent notation (the exponent limits are
 * decimal.js's extremes), so `toString()` and `toFixed()` always give plain decimal
 * strings for the wire. Operations round to 60 significant digits; the execution
 * arithmetic below does not rely on that (see `exactProduct` and `roundedQuotient`).
 */
export const Decimal = DecimalJs.clone({
  precision: 60,
  rounding: DecimalJs.ROUND_HALF_EVEN,
  // Stryker disable next-line UnaryOperator: decimal.js refuses +9e15 at load, so every test file fails to load, which Stryker 9.6 reports as "survived" (no test ran).
  toExpNeg: -9e15,
  toExpPos: 9e15,
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

/** a × b with every digit kept: the working precision covers both factors' digits. */
function exactProduct(a: Decimal, b: Decimal): Decimal {
  const Exact = Decimal.clone({ precision: Math.max(1, a.sd() + b.sd()) })
  return new Decimal(new Exact(a).mul(b))
}

/**
 * n ÷ d (both > 0) rounded to `places` decimals in one direction, exactly. The quotient
 * is computed to enough significant digits to reach the `places`-th decimal, truncated
 * or rounded away in the same direction as the final rounding, so a long run of 9s or
 * 0s past any fixed precision can never flip the result.
 */
function roundedQuotient(n: Decimal, d: Decimal, places: number, rounding: typeof Decimal.ROUND_UP | typeof Decimal.ROUND_DOWN): Decimal {
  // The quotient is below 10^(n.e − d.e + 1), so this many digits reach 10^-places (plus a margin).
  const precision = Math.max(1, n.e - d.e + places + 3)
  const Directed = Decimal.clone({ precision, rounding })
  return new Decimal(new Directed(n).div(d)).toDecimalPlaces(places, rounding)
}

function givenAmount(name: "base_amount" | "quote_amount", value: string, places: number): Decimal {
  const amount = toDecimal(value)
  if (amount.lte(0)) throw new RangeError(`${name} must be more than 0`)
  if (amount.decimalPlaces() > places) throw new RangeError(`${name} has at most ${places} decimals`)
  return amount
}

/**
 * The other amount of an execution, from the held price, never rounded in the client's
 * favour beyond the quote:
 * - BUY by base: the fiat paid is base × price rounded up to 2 dp;
 * - BUY by quote: the crypto received is quote ÷ price rounded down to 8 dp;
 * - SELL by base: the fiat received is base × price rounded down to 2 dp;
 * - SELL by quote: the crypto sold is quote ÷ price rounded up to 8 dp.
 * The given amount is returned exactly as the client wrote its value, in canonical form.
 * Exactly one amount must be given, more than 0 and within its decimals (trailing zeros
 * aside): an amount that could only be returned rounded is refused (RangeError), as are a
 * missing or second amount (TypeError) and a price that is not more than 0 (RangeError).
 * The computed amount can be 0 when the given one is tiny; callers decide whether to allow that.
 */
export function executionAmounts(input: {
  side: Side
  price: string
  base_amount?: string | undefined
  quote_amount?: string | undefined
}): ExecutionAmounts {
  const price = toDecimal(input.price)
  if (price.lte(0)) throw new RangeError("price must be more than 0")
  if (input.base_amount !== undefined && input.quote_amount !== undefined) {
    throw new TypeError("only one of base_amount and quote_amount may be given")
  }
  if (input.base_amount !== undefined) {
    const base = givenAmount("base_amount", input.base_amount, CRYPTO_DECIMALS)
    const gross = exactProduct(base, price)
    const quote = input.side === "BUY" ? roundUp(gross, FIAT_DECIMALS) : roundDown(gross, FIAT_DECIMALS)
    return {
      base_amount: toFixedString(base, CRYPTO_DECIMALS),
      quote_amount: toFixedString(quote, FIAT_DECIMALS),
    }
  }
  if (input.quote_amount !== undefined) {
    const quote = givenAmount("quote_amount", input.quote_amount, FIAT_DECIMALS)
    const base = roundedQuotient(
      quote,
      price,
      CRYPTO_DECIMALS,
      input.side === "BUY" ? Decimal.ROUND_DOWN : Decimal.ROUND_UP,
    )
    return {
      base_amount: toFixedString(base, CRYPTO_DECIMALS),
      quote_amount: toFixedString(quote, FIAT_DECIMALS),
    }
  }
  throw new TypeError("one of base_amount or quote_amount is required")
}

/** Two decimal strings denote the same amount ("1.5" and "1.50000000" do). */
export function sameAmount(a: string | undefined, b: string | undefined): boolean {
  // Both left out: the same. One left out: tryDecimal makes it null, so not the same.
  if (a === undefined && b === undefined) return true
  const x = tryDecimal(a)
  const y = tryDecimal(b)
  return x !== null && y !== null && x.eq(y)
}
