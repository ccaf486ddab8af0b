import { z } from "zod"
import { dateTimeSchema, requiredOr } from "@/lib/schemas/common"
import { EXECUTION_SIDES, EXECUTION_STATUSES } from "@/lib/schemas/quote-execution"

/**
 * The service's records as they cross the wire. Amounts and prices stay decimal strings.
 * Unknown fields are dropped on parse, so nothing the service adds leaks through the console.
 */
export const decimalString = z
  .string({ error: requiredOr("must be a decimal string, not a number") })
  .regex(/^-?[0-9]*\.?[0-9]+$/, "must be a decimal string")
export const marketSchema = z.string().regex(/^[A-Z0-9]{4,16}$/, "must be a market like BTCUSD")
const stringMap = z.record(z.string(), z.string())

export const quoteSchema = z.object({
  id: z.string().min(1),
  market: marketSchema,
  side: z.enum(EXECUTION_SIDES),
  price: decimalString,
  base_asset: z.string().min(1),
  quote_asset: z.string().min(1),
  created_at: dateTimeSchema,
  expires_at: dateTimeSchema,
})
export type Quote = z.infer<typeof quoteSchema>
export const quoteListSchema = z.object({ items: z.array(quoteSchema) })

export const quoteExecutionSchema = z.object({
  id: z.string().min(1),
  profile_id: z.string().min(1),
  quote_id: z.string().min(1),
  ref_id: z.string().optional(),
  status: z.enum(EXECUTION_STATUSES),
  market: marketSchema,
  side: z.enum(EXECUTION_SIDES),
  price: decimalString,
  base_amount: decimalString,
  base_asset: z.string().min(1),
  quote_amount: decimalString,
  quote_asset: z.string().min(1),
  created_at: dateTimeSchema,
  settled_at: dateTimeSchema.optional(),
  metadata: stringMap.optional(),
  identity_id: z.string().optional(),
  account_id: z.string().optional(),
  recipient_profile_id: z.string().optional(),
})
export type QuoteExecution = z.infer<typeof quoteExecutionSchema>
export const quoteExecutionPageSchema = z.object({
  total_count: z.number().int().optional(),
  items: z.array(quoteExecutionSchema),
  next_page_cursor: z.string().optional(),
})
export type QuoteExecutionPage = z.infer<typeof quoteExecutionPageSchema>

/**
 * No field of a conversion is marked required by the service; the console cannot work
 * with one that lacks an id or a status, so those two are required here.
 */
export const conversionSchema = z.object({
  id: z.string().min(1),
  profile_id: z.string().optional(),
  amount: decimalString.optional(),
  source_asset: z.string().optional(),
  target_asset: z.string().optional(),
  status: z.string().min(1),
  ref_id: z.string().optional(),
  identity_id: z.string().optional(),
  account_id: z.string().optional(),
  created_at: dateTimeSchema.optional(),
  updated_at: dateTimeSchema.optional(),
  settled_at: dateTimeSchema.optional(),
  cancelled_at: dateTimeSchema.optional(),
  metadata: stringMap.optional(),
  recipient_profile_id: z.string().optional(),
  /** Why a conversion placed through the Orchestrations API ended FAILED. */
  fail_reason: z.object({ detail: z.string().optional() }).optional(),
})
export type Conversion = z.infer<typeof conversionSchema>
export const conversionPageSchema = z.object({
  items: z.array(conversionSchema),
  next_page_cursor: z.string().optional(),
})
export type ConversionPage = z.infer<typeof conversionPageSchema>

export const profileSchema = z.object({
  id: z.string().min(1),
  nickname: z.string(),
  type: z.string(),
  description: z.string().optional(),
  account_id: z.string().optional(),
})
export type Profile = z.infer<typeof profileSchema>
export const profilePageSchema = z.object({
  items: z.array(profileSchema),
  next_page_cursor: z.string().optional(),
})

export const balanceSchema = z.object({
  asset: z.string().min(1),
  available: decimalString,
  trading: decimalString,
})
export type Balance = z.infer<typeof balanceSchema>
export const balanceListSchema = z.object({ items: z.array(balanceSchema) })

export { isTerminalStatus } from "@/lib/schemas/constants"
