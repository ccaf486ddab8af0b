import { type Decimal, FIAT_DECIMALS, roundUp, toDecimal } from "@/lib/money"
import { parseMarket } from "@/lib/schemas/assets"

/**
 * The policy's rules about one order, as pure functions: the server admits an order by
 * them (lib/console/policy) and the trade and conversion forms show, before Confirm,
 * what the server will say (with the facts GET /api/me/limits gives).
 */

/** An order's size: the fiat amount the policy counts. */
export interface OrderSize {
  amount: Decimal
  currency: string
}

/** The limits in force for one staff member in one currency (null: none). */
export interface LimitsInCurrency {
  per_order: string | null | undefined
  per_day: string | null | undefined
}

export interface LimitBreach {
  limit: "per_order" | "per_day"
  /** The limit's amount. */
  amount: Decimal
  /** What the staff member has used today, before this order. */
  used: Decimal
}

/** An execution's size: its quote_amount, or base_amount × the price rounded up to cents. */
export function executionSize(body: { base_amount?: string | undefined; quote_amount?: string | undefined }, at: { market: string; price: string }): OrderSize {
  const market = parseMarket(at.market)
  if (!market) throw new Error(`market ${at.market} has no fiat currency`)
  const amount = body.quote_amount
    ? toDecimal(body.quote_amount)
    : roundUp(toDecimal(body.base_amount ?? "0").mul(toDecimal(at.price)), FIAT_DECIMALS)
  return { amount, currency: market.quote }
}

/** A conversion's size is its amount, in USD (stablecoins convert 1:1). */
export function conversionSize(body: { amount: string }): OrderSize {
  return { amount: toDecimal(body.amount), currency: "USD" }
}

/** The limit an order of `size` would break, given what is used today; null when it fits. */
export function limitBreach(limits: LimitsInCurrency | null, size: OrderSize, used: Decimal): LimitBreach | null {
  if (!limits) return null
  if (limits.per_order != null && size.amount.gt(toDecimal(limits.per_order))) {
    return { limit: "per_order", amount: toDecimal(limits.per_order), used }
  }
  if (limits.per_day != null && used.add(size.amount).gt(toDecimal(limits.per_day))) {
    return { limit: "per_day", amount: toDecimal(limits.per_day), used }
  }
  return null
}

/** Orders at or over the threshold wait for a second person. */
export function atOrOverThreshold(threshold: string | null | undefined, size: OrderSize): boolean {
  return threshold != null && size.amount.gte(toDecimal(threshold))
}
