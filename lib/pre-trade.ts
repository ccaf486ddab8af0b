import { type LimitBreach, type OrderSize, atOrOverThreshold, limitBreach } from "@/lib/limits"
import { toDecimal, tryDecimal } from "@/lib/money"
import type { CurrencyFacts, PreTradeFacts } from "@/lib/schemas/pre-trade"

/**
 * What the console will say about an order, worked out before Confirm from the facts of
 * GET /api/me/limits with the rules the server admits orders by (lib/limits): a limit it
 * breaks (the server refuses it: Confirm is off), whether it waits for a second person,
 * whether its size asks for the amount to be typed again.
 */
export interface PreTradeVerdict {
  size: OrderSize
  /** The facts in the order's currency; null while they are loading (or for a currency with none). */
  facts: CurrencyFacts | null
  breach: LimitBreach | null
  /** The approval threshold for this kind of order in its currency (null: none). */
  threshold: string | null
  needsApproval: boolean
  retype: boolean
}

export function preTradeVerdict(kind: "execution" | "conversion", size: OrderSize, facts: PreTradeFacts | undefined): PreTradeVerdict {
  const inCurrency = facts?.currencies.find((c) => c.currency === size.currency) ?? null
  if (!inCurrency) return { size, facts: null, breach: null, threshold: null, needsApproval: false, retype: false }
  const threshold = kind === "execution" ? inCurrency.execution_threshold : inCurrency.conversion_threshold
  return {
    size,
    facts: inCurrency,
    breach: limitBreach(inCurrency, size, toDecimal(inCurrency.used_today)),
    threshold,
    needsApproval: atOrOverThreshold(threshold, size),
    retype: atOrOverThreshold(inCurrency.retype_over, size),
  }
}

/** The typed-again amount is the same amount as the one under review ("250" and "250.00" are). */
export function retypedMatches(typed: string, amount: string): boolean {
  const normalized = typed.trim().replace(/,/g, "")
  if (!/^\d+(\.\d+)?$/.test(normalized)) return false
  return toDecimal(normalized).eq(toDecimal(amount))
}

/** What an order takes from the profile's balance of one asset. */
export interface Payment {
  asset: string
  amount: string
}

/** The paying balance is short: needed vs available, as the service's Insufficient Funds would say, and by how much. */
export interface Shortfall {
  asset: string
  needed: string
  available: string
  short: string
}

/**
 * The available balance of `asset` once the profile's balances have loaded: a profile
 * without a row for the asset has none of it ("0"). Undefined while they load.
 */
export function availableOf(asset: string, balances: readonly { asset: string; available: string }[] | undefined): string | undefined {
  return balances ? (balances.find((b) => b.asset === asset)?.available ?? "0") : undefined
}

/**
 * Needed vs available when the payment is more than the balance, comparing decimals
 * exactly; null when it fits, or while the balance is unknown (loading or not a number).
 * The ticket, the review and the conversion's review all ask this one function.
 */
export function shortfallOf(payment: Payment, available: string | undefined): Shortfall | null {
  const have = available === undefined ? null : tryDecimal(available)
  const need = tryDecimal(payment.amount)
  if (have === null || need === null || need.lte(have)) return null
  return { asset: payment.asset, needed: payment.amount, available: available!, short: need.sub(have).toFixed() }
}
