import { ApiNetworkError, ApiProblemError } from "@/lib/queries/api"
import { problemSlug } from "@/lib/schemas/problem-slug"
import { type QuoteExecution, quoteExecutionSchema } from "@/lib/schemas/records"

/**
 * What an execute request's failure means for the submission:
 * - unknown: it may or may not have been placed (no answer, a 5xx, a 429): send the same
 *   body with the same ref_id again to find out;
 * - failed: the service or the console refused it; nothing was placed;
 * - already-exists: the ref_id names an execution already (meta.existing shows it);
 * - conflict: the console has this ref_id for a different request.
 */
export type Outcome = "unknown" | "failed" | "already-exists" | "conflict"

export function outcomeOf(error: unknown): Outcome {
  if (error instanceof ApiNetworkError) return "unknown"
  if (!(error instanceof ApiProblemError)) return "unknown"
  const { status } = error
  if (status === 409) return problemSlug(error.problem) === "already-exists" ? "already-exists" : "conflict"
  if (status === 401 || status === 408 || status === 429 || status >= 500) return "unknown"
  return "failed"
}

/** Refusals that a fresh quote of the same market and side can fix. */
export function needsFreshQuote(error: unknown): boolean {
  if (!(error instanceof ApiProblemError)) return false
  const slug = problemSlug(error.problem)
  return slug === "expired" || slug === "rejected" || (error.status === 404 && /quote/i.test(error.problem.detail ?? ""))
}

/** The existing record a 409 Already Exists carries, if it is readable. */
export function existingExecution(error: unknown): QuoteExecution | null {
  if (!(error instanceof ApiProblemError)) return null
  const parsed = quoteExecutionSchema.safeParse(error.problem.meta?.existing)
  return parsed.success ? parsed.data : null
}

/** Where a 400's field names land in the execute form. */
export function formFieldOf(field: string): "amount" | "metadata" | "identity_id" | "account_id" | "recipient_profile_id" | null {
  if (field === "base_amount" || field === "quote_amount") return "amount"
  if (field === "metadata" || field.startsWith("metadata.")) return "metadata"
  if (field === "identity_id" || field === "account_id" || field === "recipient_profile_id") return field
  return null
}
