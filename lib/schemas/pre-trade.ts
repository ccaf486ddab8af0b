import { z } from "zod"

/**
 * What the signed-in staff member's next order is checked against, per fiat currency:
 * the limits in force for them, what they have used today (UTC), the approval thresholds
 * and the size over which the amount is typed twice. GET /api/me/limits answers it; the
 * trade ticket and the conversion form show it before Confirm, by the rules of lib/limits.
 */
export const currencyFactsSchema = z.object({
  currency: z.string(),
  per_order: z.string().nullable(),
  per_day: z.string().nullable(),
  used_today: z.string(),
  execution_threshold: z.string().nullable(),
  conversion_threshold: z.string().nullable(),
  retype_over: z.string().nullable(),
})
export type CurrencyFacts = z.infer<typeof currencyFactsSchema>

export const preTradeFactsSchema = z.object({
  staff_email: z.string(),
  /** The UTC day "used today" counts, YYYY-MM-DD. */
  day: z.string(),
  currencies: z.array(currencyFactsSchema),
})
export type PreTradeFacts = z.infer<typeof preTradeFactsSchema>
