import { z } from "zod"
import { dateTimeSchema } from "@/lib/schemas/common"
import { decimalString } from "@/lib/schemas/records"

/** GET /api/overview: the desk at a glance. Money is a decimal string; USD values have 2 decimals. */
const holdingSchema = z.object({
  asset: z.string(),
  amount: decimalString,
  /** USD per unit at the current mid; null when the console has no price for the asset. */
  price_usd: decimalString.nullable(),
  value_usd: decimalString.nullable(),
})
export type Holding = z.infer<typeof holdingSchema>

const activityRowSchema = z.object({ status: z.string(), count: z.number().int().min(0), notional_usd: decimalString })
export type ActivityRow = z.infer<typeof activityRowSchema>

const feedItemSchema = z.object({
  /** deposit: a credit to a profile the console learned from the service's events (a deposit, an internal credit). */
  kind: z.enum(["execution", "conversion", "deposit"]),
  id: z.string(),
  profile_id: z.string(),
  profile_name: z.string(),
  status: z.string(),
  summary: z.string(),
  created_at: dateTimeSchema,
})
export type FeedItem = z.infer<typeof feedItemSchema>

/** Today's holdings over the last 24 hours at the service's historical prices; the change since the UTC day's open. */
const totalHistorySchema = z.object({
  opened_at: dateTimeSchema,
  open_usd: decimalString,
  /** Signed: the total now minus today's holdings at the open's prices. */
  change_usd: z.string().regex(/^-?\d+\.\d{2}$/),
  change_percent: z.string().regex(/^-?\d+\.\d{2}$/).nullable(),
  points: z.array(z.object({ t: dateTimeSchema, total_usd: decimalString })),
})
export type TotalHistory = z.infer<typeof totalHistorySchema>

export const overviewSchema = z.object({
  total_usd: decimalString,
  /** Null when no held asset has a price history (or the service's history failed). */
  total_history: totalHistorySchema.nullable(),
  profiles: z.array(z.object({ id: z.string(), nickname: z.string(), total_usd: decimalString, holdings: z.array(holdingSchema) })),
  /** Every asset across profiles, largest value first; `share` is a percentage with 1 decimal. */
  allocation: z.array(holdingSchema.extend({ share: decimalString.nullable() })),
  /** 24-hour change of each USD market, as the service's List Prices gives it. */
  changes: z.array(
    z.object({ market: z.string(), asset: z.string(), current_price: decimalString, yesterday_price: decimalString, change_percent: decimalString }),
  ),
  /** Executions and conversions placed through the console since midnight UTC, by status. */
  activity: z.object({ since: dateTimeSchema, executions: z.array(activityRowSchema), conversions: z.array(activityRowSchema) }),
  /** The latest executions and conversions across profiles, newest first. */
  feed: z.array(feedItemSchema),
  /** Admins only: intents whose outcome is not known yet (PENDING or UNKNOWN). */
  unresolved_intents: z.number().int().min(0).nullable(),
  priced_at: dateTimeSchema,
  stale: z.boolean(),
})
export type Overview = z.infer<typeof overviewSchema>
