import { ApiProblemError } from "@/lib/queries/api"
import { hasProblemCode } from "@/lib/schemas/problem-codes"

/** Refusals that a fresh quote of the same market and side can fix: the quote expired, was rejected, or is gone. */
export function needsFreshQuote(error: unknown): boolean {
  return error instanceof ApiProblemError && hasProblemCode(error.problem, "expired", "rejected", "quote_not_found")
}

/** Where a 400's field names land in the execute form. */
export function formFieldOf(field: string): "amount" | "metadata" | "identity_id" | "account_id" | "recipient_profile_id" | null {
  if (field === "base_amount" || field === "quote_amount") return "amount"
  if (field === "metadata" || field.startsWith("metadata.")) return "metadata"
  if (field === "identity_id" || field === "account_id" || field === "recipient_profile_id") return field
  return null
}
