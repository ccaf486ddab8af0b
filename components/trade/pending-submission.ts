import { z } from "zod"
import { keptFormExtrasShape } from "@/components/forms/kept-values"
import type { ExecuteFormValues, ExecutionBody } from "@/components/trade/execute-model"
import { PENDING_KEY } from "@/components/trade/pending-key"
import { type PendingStore, pendingStore } from "@/lib/queries/pending-submission"
import { refIdSchema } from "@/lib/schemas/common"
import { quoteExecutionCreateSchema } from "@/lib/schemas/quote-execution"
import { type Quote, quoteSchema } from "@/lib/schemas/records"

/**
 * The trade submission waiting at the confirm step (or sent, answer not yet seen), kept in
 * sessionStorage so a reload of that step resumes it: the same body with the same ref_id
 * (see lib/queries/pending-submission).
 */
export interface PendingSubmission {
  version: 1
  profileId: string
  refId: string
  body: ExecutionBody
  quote: Quote
  values: ExecuteFormValues
  /** The request left the browser at least once: its outcome is unknown until answered. */
  sent: boolean
  savedAt: string
}

const pendingSchema = z.object({
  version: z.literal(1),
  profileId: z.string().min(1),
  refId: refIdSchema,
  body: quoteExecutionCreateSchema.transform((body) => ({ ...body, ref_id: body.ref_id ?? "" })),
  quote: quoteSchema,
  values: z.object({
    mode: z.enum(["crypto", "fiat"]),
    amount: z.string(),
    ...keptFormExtrasShape,
  }),
  sent: z.boolean(),
  savedAt: z.string(),
})

export const pendingTrades: PendingStore<PendingSubmission> = pendingStore<PendingSubmission>(PENDING_KEY, pendingSchema, (p) => p.body.quote_id === p.quote.id)
