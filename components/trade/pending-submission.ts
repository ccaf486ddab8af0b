import { z } from "zod"
import { refIdSchema } from "@/lib/schemas/common"
import { quoteExecutionCreateSchema } from "@/lib/schemas/quote-execution"
import { quoteSchema } from "@/lib/schemas/records"
import type { ExecuteFormValues, ExecutionBody } from "@/components/trade/execute-model"
import type { Quote } from "@/lib/schemas/records"
import { PENDING_KEY } from "@/components/trade/lazy"

/**
 * The submission waiting at the confirm step (or sent, answer not yet seen), kept in
 * sessionStorage so a reload of that step resumes it: the same body with the same ref_id.
 * One that was sent is looked up, not sent again (see lib/queries/submission).
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

export { PENDING_KEY }
/** A pending submission older than this is dropped rather than resumed. */
export const PENDING_MAX_AGE_MS = 24 * 60 * 60 * 1000

type Store = Pick<Storage, "getItem" | "setItem" | "removeItem">

const pendingSchema = z.object({
  version: z.literal(1),
  profileId: z.string().min(1),
  refId: refIdSchema,
  body: quoteExecutionCreateSchema,
  quote: quoteSchema,
  values: z.object({
    mode: z.enum(["crypto", "fiat"]),
    amount: z.string(),
    metadata: z.array(z.object({ key: z.string(), value: z.string() })),
    identity_id: z.string(),
    account_id: z.string(),
    recipient_profile_id: z.string(),
  }),
  sent: z.boolean(),
  savedAt: z.string(),
})

export function savePending(store: Store, pending: PendingSubmission): void {
  try {
    store.setItem(PENDING_KEY, JSON.stringify(pending))
  } catch {
    // Storage full or blocked: the submission still works, it just won't survive a reload.
  }
}

export function loadPending(store: Store, nowMs: number): PendingSubmission | null {
  let raw: string | null
  try {
    raw = store.getItem(PENDING_KEY)
  } catch {
    return null
  }
  if (raw === null) return null
  let json: unknown
  try {
    json = JSON.parse(raw)
  } catch {
    clearPending(store)
    return null
  }
  const parsed = pendingSchema.safeParse(json)
  if (
    !parsed.success ||
    parsed.data.body.ref_id !== parsed.data.refId ||
    parsed.data.body.quote_id !== parsed.data.quote.id ||
    !(nowMs - Date.parse(parsed.data.savedAt) < PENDING_MAX_AGE_MS)
  ) {
    clearPending(store)
    return null
  }
  const { body, ...rest } = parsed.data
  return { ...rest, body: { ...body, ref_id: parsed.data.refId } }
}

export function clearPending(store: Store): void {
  try {
    store.removeItem(PENDING_KEY)
  } catch {
    // Nothing to do: see savePending.
  }
}
