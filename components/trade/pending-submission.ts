import { z } from "zod"
import { refIdSchema } from "@/lib/schemas/common"
import { quoteExecutionCreateSchema } from "@/lib/schemas/quote-execution"
import { quoteSchema } from "@/lib/schemas/records"
import type { ExecuteFormValues, ExecutionBody } from "@/components/trade/execute-model"
import type { Quote } from "@/lib/schemas/records"
import { PENDING_KEY } from "@/components/trade/lazy"
import { PENDING_MAX_AGE_MS, type Store, keptFormExtrasShape, pendingStore } from "@/lib/queries/pending-submission"

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

export { PENDING_KEY, PENDING_MAX_AGE_MS }

const pendingSchema = z.object({
  version: z.literal(1),
  profileId: z.string().min(1),
  refId: refIdSchema,
  body: quoteExecutionCreateSchema,
  quote: quoteSchema,
  values: z.object({
    mode: z.enum(["crypto", "fiat"]),
    amount: z.string(),
    ...keptFormExtrasShape,
  }),
  sent: z.boolean(),
  savedAt: z.string(),
})

type Stored = z.infer<typeof pendingSchema> & { body: { ref_id: string } }

const trades = pendingStore<Stored>(PENDING_KEY, pendingSchema as z.ZodType<Stored>, (p) => p.body.quote_id === p.quote.id)

export function savePending(store: Store, pending: PendingSubmission): void {
  trades.save(store, pending)
}

export function loadPending(store: Store, nowMs: number): PendingSubmission | null {
  const pending = trades.load(store, nowMs)
  if (!pending) return null
  const { body, ...rest } = pending
  return { ...rest, body: { ...body, ref_id: pending.refId } }
}

export function clearPending(store: Store): void {
  trades.clear(store)
}
