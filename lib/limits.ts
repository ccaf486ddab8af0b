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

/** How many distinct approvers a request needs and which roles may approve it (and reject it). */
export interface ApprovalRequirement {
  approvers: number
  roles: ("trader" | "admin")[]
  /** The tier that applies (its index and where it starts in the request's currency); null: the single-approver default. */
  tier: { index: number; at_or_over: string } | null
}

/** No tier reached (or none set): one approver, a trader or an admin (the rule before tiers). */
export const SINGLE_APPROVER: ApprovalRequirement = { approvers: 1, roles: ["trader", "admin"], tier: null }

/**
 * The tier a request of `size` falls in: of the tiers with an amount in its currency that it
 * reaches, the one starting highest. None reached, or no tiers: one approver (today's rule).
 */
export function approvalRequirement(
  tiers: readonly { at_or_over: Partial<Record<string, string>>; approvers: number; roles: ("trader" | "admin")[] }[] | undefined,
  size: OrderSize,
): ApprovalRequirement {
  let best: ApprovalRequirement = SINGLE_APPROVER
  let from: Decimal | null = null
  ;(tiers ?? []).forEach((tier, index) => {
    const start = tier.at_or_over[size.currency]
    if (start === undefined || !atOrOverThreshold(start, size)) return
    const at = toDecimal(start)
    if (from !== null && at.lte(from)) return
    from = at
    best = { approvers: tier.approvers, roles: [...tier.roles], tier: { index, at_or_over: start } }
  })
  return best
}
