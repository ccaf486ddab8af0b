import "server-only"
import { allPages, csvResponse } from "@/lib/console/csv"
import type { Attributed } from "@/lib/console/attribution"
import { CONVERSION_DECIMALS, csvAmount, csvPrice } from "@/lib/format"
import type { AuditEntry } from "@/lib/schemas/audit"
import type { Conversion, QuoteExecution } from "@/lib/schemas/records"
import type { Transfer } from "@/lib/schemas/transfer"

/**
 * The console's CSV exports (executions, conversions, the audit trail): one page size,
 * one file name format, one way to start. Every page the filters select is streamed.
 */

/** Rows asked for per page while an export walks a list. */
export const EXPORT_PAGE_SIZE = 500

export interface CsvColumn<T> {
  header: string
  value: (row: T) => unknown
}

/** `<name>-20260131T120000Z.csv`: what, and when it was taken (UTC, to the second). */
export function exportFilename(name: string, at: Date = new Date()): string {
  return `${name}-${at.toISOString().slice(0, 19).replace(/[-:]/g, "")}Z.csv`
}

type Page<T> = { items: readonly T[]; next_page_cursor?: string | null | undefined }

/**
 * A streamed CSV of every page `fetchPage` walks. The first page is read before answering,
 * so a refused filter, an unknown profile or a service failure is a problem response
 * rather than a broken download.
 */
export async function csvExport<T>(options: {
  name: string
  columns: readonly CsvColumn<T>[]
  fetchPage: (pageCursor: string | undefined) => Promise<Page<T>>
}): Promise<Response> {
  let first: Page<T> | undefined = await options.fetchPage(undefined)
  return csvResponse({
    filename: exportFilename(options.name),
    columns: options.columns,
    pages: () =>
      allPages((cursor) => {
        if (cursor === undefined && first) {
          const page = first
          first = undefined
          return Promise.resolve(page)
        }
        return options.fetchPage(cursor)
      }),
  })
}

const metadataJson = (metadata: Record<string, string> | undefined) =>
  metadata && Object.keys(metadata).length > 0 ? JSON.stringify(metadata) : undefined

export const EXECUTION_CSV_COLUMNS: readonly CsvColumn<Attributed<QuoteExecution>>[] = [
  { header: "id", value: (r) => r.id },
  { header: "created_at", value: (r) => r.created_at },
  { header: "settled_at", value: (r) => r.settled_at },
  { header: "status", value: (r) => r.status },
  { header: "market", value: (r) => r.market },
  { header: "side", value: (r) => r.side },
  { header: "price", value: (r) => csvPrice(r.price) },
  { header: "base_amount", value: (r) => csvAmount(r.base_amount, r.base_asset) },
  { header: "base_asset", value: (r) => r.base_asset },
  { header: "quote_amount", value: (r) => csvAmount(r.quote_amount, r.quote_asset) },
  { header: "quote_asset", value: (r) => r.quote_asset },
  { header: "quote_id", value: (r) => r.quote_id },
  { header: "ref_id", value: (r) => r.ref_id },
  { header: "profile_id", value: (r) => r.profile_id },
  { header: "identity_id", value: (r) => r.identity_id },
  { header: "account_id", value: (r) => r.account_id },
  { header: "recipient_profile_id", value: (r) => r.recipient_profile_id },
  { header: "metadata", value: (r) => metadataJson(r.metadata) },
  { header: "placed_by", value: (r) => r.placed_by },
  { header: "approved_by", value: (r) => r.approved_by },
]

export const CONVERSION_CSV_COLUMNS: readonly CsvColumn<Attributed<Conversion>>[] = [
  { header: "id", value: (c) => c.id },
  { header: "ref_id", value: (c) => c.ref_id },
  { header: "status", value: (c) => c.status },
  { header: "profile_id", value: (c) => c.profile_id },
  { header: "source_asset", value: (c) => c.source_asset },
  { header: "target_asset", value: (c) => c.target_asset },
  { header: "amount", value: (c) => csvAmount(c.amount, c.source_asset, CONVERSION_DECIMALS) },
  { header: "created_at", value: (c) => c.created_at },
  { header: "updated_at", value: (c) => c.updated_at },
  { header: "settled_at", value: (c) => c.settled_at },
  { header: "cancelled_at", value: (c) => c.cancelled_at },
  { header: "identity_id", value: (c) => c.identity_id },
  { header: "account_id", value: (c) => c.account_id },
  { header: "recipient_profile_id", value: (c) => c.recipient_profile_id },
  { header: "metadata", value: (c) => metadataJson(c.metadata) },
  { header: "fail_reason", value: (c) => c.fail_reason?.detail },
  { header: "placed_by", value: (c) => c.placed_by },
  { header: "approved_by", value: (c) => c.approved_by },
]

/** Amount, fee and total in the asset's places; the service's total is the balance change (unsigned). */
export const TRANSFER_CSV_COLUMNS: readonly CsvColumn<Transfer>[] = [
  { header: "id", value: (t) => t.id },
  { header: "created_at", value: (t) => t.created_at },
  { header: "updated_at", value: (t) => t.updated_at },
  { header: "type", value: (t) => t.type },
  { header: "direction", value: (t) => t.direction },
  { header: "status", value: (t) => t.status },
  { header: "asset", value: (t) => t.asset },
  { header: "amount", value: (t) => csvAmount(t.amount, t.asset) },
  { header: "fee", value: (t) => csvAmount(t.fee, t.asset) },
  { header: "total", value: (t) => csvAmount(t.total, t.asset) },
  { header: "profile_id", value: (t) => t.profile_id },
  { header: "ref_id", value: (t) => t.ref_id },
  { header: "crypto_network", value: (t) => t.crypto_network },
  { header: "crypto_tx_hash", value: (t) => t.crypto_tx_hash },
  { header: "destination_address", value: (t) => t.destination_address },
  { header: "memo", value: (t) => t.memo },
  { header: "group_id", value: (t) => t.group_id },
  { header: "metadata", value: (t) => metadataJson(t.metadata) },
]

const text = (value: unknown) => (typeof value === "string" ? value : undefined)

/** Only what the request said about money and the quote; never the whole body. */
export const AUDIT_CSV_COLUMNS: readonly CsvColumn<AuditEntry>[] = [
  { header: "created_at", value: (r) => r.created_at },
  { header: "staff_email", value: (r) => r.staff_email },
  { header: "staff_role", value: (r) => r.staff_role },
  { header: "operation", value: (r) => r.operation },
  { header: "profile_id", value: (r) => r.profile_id },
  { header: "market", value: (r) => r.market },
  { header: "side", value: (r) => r.side },
  { header: "state", value: (r) => r.state },
  { header: "ref_id", value: (r) => r.ref_id },
  { header: "target_id", value: (r) => r.target_id },
  { header: "record_id", value: (r) => r.record_id },
  { header: "record_status", value: (r) => r.record_status },
  { header: "upstream_api", value: (r) => r.upstream_api },
  { header: "quote_id", value: (r) => text(r.request.quote_id) },
  { header: "base_amount", value: (r) => text(r.request.base_amount) },
  { header: "quote_amount", value: (r) => text(r.request.quote_amount) },
  { header: "amount", value: (r) => text(r.request.amount) },
  { header: "source_asset", value: (r) => text(r.request.source_asset) },
  { header: "target_asset", value: (r) => text(r.request.target_asset) },
  { header: "problem_title", value: (r) => r.problem?.title },
  { header: "problem_status", value: (r) => r.problem?.status },
  { header: "problem_detail", value: (r) => r.problem?.detail },
  { header: "attempts", value: (r) => r.attempts },
  { header: "resolved_at", value: (r) => r.resolved_at },
  { header: "intent_id", value: (r) => r.id },
  { header: "placed_by", value: (r) => (r.operation.startsWith("create_") ? r.staff_email : undefined) },
  { header: "approved_by", value: (r) => (r.approval_state === "APPROVED" ? r.approver : undefined) },
]
