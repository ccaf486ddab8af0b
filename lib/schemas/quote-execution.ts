import { z } from "zod"
import { assertionSchema } from "@/lib/schemas/approvals"
import { EVEN_WITH_FIELD_ERRORS, idSchema, refIdSchema, serviceRefIdSchema } from "@/lib/schemas/common"
import { metadataSchema } from "@/lib/schemas/metadata"
import { dateTimeFilterSchema, orderSchema, pagingShape } from "@/lib/schemas/paging"
import { CRYPTO_DECIMALS, FIAT_DECIMALS } from "@/lib/money"
import { amountSchema } from "@/lib/schemas/money"

import { EXECUTION_SIDES, EXECUTION_STATUSES } from "@/lib/schemas/constants"

export { EXECUTION_SIDES, EXECUTION_STATUSES }

/**
 * Body of "execute a held quote", in the service's field names and with the service's
 * rules. Shared by the trade form, the console's route handler and the sandbox: exactly
 * one of base_amount (crypto, at most 8 decimals) or quote_amount (fiat, at most 2
 * decimals), each exactly as the service's pattern allows (no spaces around it), metadata
 * within limits, any ref_id up to 255 characters, kept as sent.
 */
export const quoteExecutionCreateSchema = z
  .strictObject({
    quote_id: idSchema,
    ref_id: serviceRefIdSchema.optional(),
    base_amount: amountSchema(CRYPTO_DECIMALS).optional(),
    quote_amount: amountSchema(FIAT_DECIMALS).optional(),
    metadata: metadataSchema.optional(),
    identity_id: idSchema.optional(),
    account_id: idSchema.optional(),
    recipient_profile_id: idSchema.optional(),
  })
  .superRefine((body, ctx) => {
    // The body as sent (see EVEN_WITH_FIELD_ERRORS): an amount counts as given whatever its type.
    const fields = body as Record<string, unknown>
    const given = ["base_amount", "quote_amount"].filter((name) => fields[name] !== undefined).length
    if (given !== 1) {
      const message =
        given === 0 ? "give base_amount or quote_amount" : "give only one of base_amount and quote_amount"
      ctx.addIssue({ code: "custom", path: ["base_amount"], message })
      ctx.addIssue({ code: "custom", path: ["quote_amount"], message })
    }
  }, EVEN_WITH_FIELD_ERRORS)

export type QuoteExecutionCreate = z.infer<typeof quoteExecutionCreateSchema>

/** A market like BTCUSD; the schema's error is also its pattern's (one message for a wrong type and a wrong form). */
const marketSchema = z.string({ error: "must be a market like BTCUSD" }).regex(/^[A-Z0-9]{4,16}$/)

/**
 * The held quote as the maker reviewed it. The console never sends it to the service: it
 * tells the console the order's market, side and price when the quote is no longer the
 * current one (approval policy: the order's size, and the limit price of a request).
 */
export const reviewedQuoteSchema = z.strictObject({
  market: marketSchema,
  side: z.enum(EXECUTION_SIDES, { error: "must be BUY or SELL" }),
  // The schema's error is also its pattern's: one message for a wrong type and a wrong form.
  price: z.string({ error: "must be a decimal string" }).regex(/^[0-9]*\.?[0-9]+$/),
})

/**
 * The console API's body: the same, but `ref_id` is required, and follows the console's
 * stricter rule (letters, digits and . _ : -, at most 128). The server never invents one,
 * because a client that retries without one would make a second execution; whoever sends the
 * request keeps one `ref_id` per submission and sends it again on every retry.
 */
export const consoleQuoteExecutionCreateSchema = quoteExecutionCreateSchema.safeExtend({
  ref_id: refIdSchema,
  reviewed_quote: reviewedQuoteSchema.optional(),
  /** The maker's passkey assertion, for an order at or over the policy's step_up_over (STEP_UP=webauthn). */
  step_up: assertionSchema.optional(),
})

export type ReviewedQuote = z.infer<typeof reviewedQuoteSchema>

/** Filters of the execution list, as the service takes them. */
export const quoteExecutionListQuerySchema = z.strictObject({
  side: z.enum(EXECUTION_SIDES, { error: "must be BUY or SELL" }).optional(),
  market: marketSchema.optional(),
  status: z.enum(EXECUTION_STATUSES, { error: "must be CREATED or SETTLED" }).optional(),
  "created_at.begin": dateTimeFilterSchema.optional(),
  "created_at.end": dateTimeFilterSchema.optional(),
  order: orderSchema.optional(),
  order_by: z.enum(["CREATED_AT"], { error: "must be CREATED_AT" }).optional(),
  ...pagingShape,
})
export type QuoteExecutionListQuery = z.infer<typeof quoteExecutionListQuerySchema>
