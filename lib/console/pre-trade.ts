import "server-only"
import type { Staff } from "@/lib/auth/roles"
import { limitsFor, readPolicy, usedTodaySum, usedTodayWhere, utcDay } from "@/lib/console/policy"
import type { Db } from "@/lib/db/client"
import { consoleIntents } from "@/lib/db/schema"
import { FIAT_DECIMALS, toDecimal } from "@/lib/money"
import { DEFAULT_POLICY, POLICY_CURRENCIES } from "@/lib/schemas/approvals"
import type { PreTradeFacts } from "@/lib/schemas/pre-trade"
import { inDbSpan } from "@/lib/tracing"

/**
 * The facts the forms check an order against before Confirm, read the way the server's
 * admission reads them (lib/console/submission): the policy in force, the staff member's
 * limits, and what their creates of the UTC day add up to per currency.
 */
export async function preTradeFacts(db: Db, staff: Staff, at: Date): Promise<PreTradeFacts> {
  const { policy } = await readPolicy(db)
  // The admission's own rows (lib/console/policy): refused and failed creates use nothing.
  const rows = await inDbSpan("usage.read", () =>
    db
      .select({ currency: consoleIntents.sizeCurrency, total: usedTodaySum })
      .from(consoleIntents)
      .where(usedTodayWhere(staff.email, undefined, at))
      .groupBy(consoleIntents.sizeCurrency),
  )
  const used = new Map(rows.map((r) => [r.currency ?? "", toDecimal(r.total ?? "0").toFixed(FIAT_DECIMALS)]))
  const limits = limitsFor(policy, staff)
  const retype = policy.retype_amount_over ?? DEFAULT_POLICY.retype_amount_over ?? {}
  return {
    staff_email: staff.email,
    day: utcDay(at).start.toISOString().slice(0, 10),
    currencies: POLICY_CURRENCIES.map((currency) => ({
      currency,
      per_order: limits?.per_order[currency] ?? null,
      per_day: limits?.per_day[currency] ?? null,
      used_today: used.get(currency) ?? "0.00",
      execution_threshold: policy.approval_thresholds.execution[currency] ?? null,
      conversion_threshold: policy.approval_thresholds.conversion[currency] ?? null,
      retype_over: retype[currency] ?? null,
    })),
  }
}
