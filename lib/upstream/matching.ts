import "server-only"
import { sameAmount } from "@/lib/money"
import type { ConversionCreate } from "@/lib/schemas/conversion"
import type { QuoteExecutionCreate } from "@/lib/schemas/quote-execution"
import type { Conversion, QuoteExecution } from "@/lib/schemas/records"

/**
 * Whether the record a 409 Already Exists names is the one this request created (an
 * earlier attempt, or a double click of the same submission) rather than another use
 * of the ref_id. Amounts compare by value: "0.5" and "0.50000000" are the same.
 */
export function isSameQuoteExecution(
  profileId: string,
  body: Pick<QuoteExecutionCreate, "quote_id" | "ref_id" | "base_amount" | "quote_amount">,
  existing: QuoteExecution,
): boolean {
  if (existing.profile_id !== profileId || existing.quote_id !== body.quote_id) return false
  if (existing.ref_id !== undefined && body.ref_id !== undefined && existing.ref_id !== body.ref_id) return false
  // The record carries both amounts; compare the side the request gave.
  if (body.base_amount !== undefined) return sameAmount(existing.base_amount, body.base_amount)
  if (body.quote_amount !== undefined) return sameAmount(existing.quote_amount, body.quote_amount)
  return false
}

export function isSameConversion(
  body: Pick<ConversionCreate, "profile_id" | "ref_id" | "amount" | "source_asset" | "target_asset">,
  existing: Conversion,
): boolean {
  if (existing.ref_id !== undefined && body.ref_id !== undefined && existing.ref_id !== body.ref_id) return false
  return (
    existing.profile_id === body.profile_id &&
    existing.source_asset === body.source_asset &&
    existing.target_asset === body.target_asset &&
    sameAmount(existing.amount, body.amount)
  )
}
