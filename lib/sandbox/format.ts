import "server-only"
import { type Decimal, toDecimal } from "@/lib/money"
import type {
  SandboxConversionRow,
  SandboxExecutionRow,
  SandboxOrchestrationRow,
  SandboxProfileRow,
  SandboxQuoteRow,
} from "@/lib/db/schema"
import { isFiat } from "@/lib/schemas/assets"

/** Wire formats: RFC 3339 UTC timestamps with Z, amounts as plain decimal strings. */

export function timestamp(date: Date): string {
  return date.toISOString()
}

/** A decimal without trailing zeros ("100.50" → "100.5", "0.000" → "0"). */
export function plain(value: Decimal | string): string {
  const d = typeof value === "string" ? toDecimal(value) : value
  return d.toString()
}

/** A balance-like amount of an asset: fiat with 2 decimals, everything else plain. */
export function assetAmount(asset: string, value: Decimal | string): string {
  const d = typeof value === "string" ? toDecimal(value) : value
  return isFiat(asset) ? d.toFixed(2) : d.toString()
}

/** A quote as the service writes it. */
export interface WireQuote {
  id: string
  market: string
  side: "BUY" | "SELL"
  price: string
  base_asset: string
  quote_asset: string
  created_at: string
  expires_at: string
}

export function wireQuote(row: SandboxQuoteRow): WireQuote {
  return {
    id: row.id,
    market: row.market,
    side: row.side,
    price: plain(row.price),
    base_asset: row.baseAsset,
    quote_asset: row.quoteAsset,
    created_at: timestamp(row.createdAt),
    expires_at: timestamp(row.expiresAt),
  }
}

export type WireExecution = Record<string, unknown> & { id: string; status: string }

export function wireExecution(row: SandboxExecutionRow): WireExecution {
  const out: WireExecution = {
    id: row.id,
    profile_id: row.profileId,
    quote_id: row.quoteId,
    status: row.status,
    market: row.market,
    side: row.side,
    price: plain(row.price),
    base_amount: toDecimal(row.baseAmount).toFixed(8),
    base_asset: row.baseAsset,
    quote_amount: toDecimal(row.quoteAmount).toFixed(2),
    quote_asset: row.quoteAsset,
    created_at: timestamp(row.createdAt),
  }
  if (row.refId !== null) out.ref_id = row.refId
  if (row.settledAt !== null) out.settled_at = timestamp(row.settledAt)
  if (row.metadata !== null) out.metadata = row.metadata
  if (row.identityId !== null) out.identity_id = row.identityId
  if (row.accountId !== null) out.account_id = row.accountId
  if (row.recipientProfileId !== null) out.recipient_profile_id = row.recipientProfileId
  return out
}

export type WireConversion = Record<string, unknown> & { id: string; status: string }

export function wireConversion(row: SandboxConversionRow): WireConversion {
  const out: WireConversion = {
    id: row.id,
    profile_id: row.profileId,
    amount: plain(row.amount),
    source_asset: row.sourceAsset,
    target_asset: row.targetAsset,
    status: row.status,
    identity_id: row.identityId,
    account_id: row.accountId,
    created_at: timestamp(row.createdAt),
    updated_at: timestamp(row.updatedAt),
  }
  if (row.refId !== null) out.ref_id = row.refId
  if (row.settledAt !== null) out.settled_at = timestamp(row.settledAt)
  if (row.cancelledAt !== null) out.cancelled_at = timestamp(row.cancelledAt)
  if (row.metadata !== null) out.metadata = row.metadata
  if (row.recipientProfileId !== null) out.recipient_profile_id = row.recipientProfileId
  return out
}

export type WireOrchestration = Record<string, unknown> & { id: string; status: string }

/**
 * Transfer status of each leg: both complete together; a failure stops the source leg and
 * never starts the destination's. One waiting for approval, or rejected, has no transfers.
 */
const TRANSFER_STATUS = {
  PENDING: null,
  REJECTED: null,
  PROCESSING: { source: "PROCESSING", destination: "PENDING" },
  COMPLETED: { source: "COMPLETED", destination: "COMPLETED" },
  FAILED: { source: "FAILED", destination: "PENDING" },
} as const

export function wireOrchestration(row: SandboxOrchestrationRow): WireOrchestration {
  const legs = TRANSFER_STATUS[row.status]
  const out: WireOrchestration = {
    id: row.id,
    profile_id: row.sourceProfileId,
    identity_id: row.identityId,
    account_id: row.accountId,
    customer_id: row.clientId,
    ref_id: row.refId,
    source_asset: row.sourceAsset,
    destination_asset: row.destinationAsset,
    source_amount: plain(row.sourceAmount),
    status: row.status,
    source: { profile: { profile_id: row.sourceProfileId } },
    destination: { profile: { profile_id: row.destinationProfileId } },
    created_at: timestamp(row.createdAt),
    updated_at: timestamp(row.updatedAt),
  }
  if (legs) {
    out.source_transfer = { transfer_id: row.sourceTransferId, status: legs.source }
    out.destination_transfer = { transfer_id: row.destinationTransferId, status: legs.destination }
  }
  if (row.status === "FAILED") out.fail_reason = { detail: row.failDetail ?? "the orchestration failed" }
  if (row.orchestrationRuleId !== null) out.orchestration_rule_id = row.orchestrationRuleId
  if (row.metadata !== null) out.metadata = row.metadata
  return out
}

export function wireProfile(row: SandboxProfileRow): Record<string, string> {
  const out: Record<string, string> = { id: row.id, nickname: row.nickname, type: row.type }
  if (row.description !== null) out.description = row.description
  return out
}
