import { ApiProblemError } from "@/lib/queries/api"
import { problemSlug } from "@/lib/schemas/problem-slug"

/** Refusals that a fresh quote of the same market and side can fix. */
export function needsFreshQuote(error: unknown): boolean {
  if (!(error instanceof ApiProblemError)) return false
  const slug = problemSlug(error.problem)
  return slug === "expired" || slug === "rejected" || (error.status === 404 && /quote/i.test(error.problem.detail ?? ""))
}

/** Where a 400's field names land in the execute form. */
export function formFieldOf(field: string): "amount" | "metadata" | "identity_id" | "account_id" | "recipient_profile_id" | null {
  if (field === "base_amount" || field === "quote_amount") return "amount"
  if (field === "metadata" || field.startsWith("metadata.")) return "metadata"
  if (field === "identity_id" || field === "account_id" || field === "recipient_profile_id") return field
  return null
}
