import { z } from "zod"
import { keptSubmissionSchema } from "@/components/forms/kept-values"
import type { ExecuteFormValues, ExecutionBody } from "@/components/trade/execute-model"
import { PENDING_KEY } from "@/components/trade/pending-key"
import { type PendingStore, pendingStore } from "@/lib/queries/pending-submission"
import type { KeptSubmission } from "@/lib/queries/submission"
import { quoteExecutionCreateSchema } from "@/lib/schemas/quote-execution"
import { type Quote, quoteSchema } from "@/lib/schemas/records"

/**
 * The trade submission waiting at the confirm step (or sent, answer not yet seen), kept in
 * sessionStorage so a reload of that step resumes it: the same body with the same ref_id,
 * for the same profile and held quote (see lib/queries/pending-submission).
 */
export type PendingSubmission = KeptSubmission<ExecutionBody> & { profileId: string; quote: Quote; values: ExecuteFormValues }

const pendingSchema = keptSubmissionSchema(
  quoteExecutionCreateSchema.transform((body) => ({ ...body, ref_id: body.ref_id ?? "" })),
  { mode: z.enum(["crypto", "fiat"]), amount: z.string() },
  { profileId: z.string().min(1), quote: quoteSchema },
)

export const pendingTrades: PendingStore<PendingSubmission> = pendingStore<PendingSubmission>(PENDING_KEY, pendingSchema, (p) => p.body.quote_id === p.quote.id)
