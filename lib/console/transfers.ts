import "server-only"
import type { ConsoleTransferListQuery, Transfer, TransferPage } from "@/lib/schemas/transfer"
import type { TransferOperations } from "@/lib/upstream/operations"
import type { TransferListFilters } from "@/lib/upstream/transfers"

/**
 * The console's transfer list over the service's. The service takes only one of
 * `ref_ids`, `profile_ids` and `type` per request (each combines with status and dates):
 * the most selective one the query names goes to the service and the others are applied
 * to each page here, so such a page may come back shorter than `limit` (its
 * `next_page_cursor` still leads on). Newest first unless `order` says otherwise.
 */
export function serviceFilters(query: Omit<ConsoleTransferListQuery, "limit" | "page_cursor">): {
  filters: TransferListFilters
  keep: (t: Transfer) => boolean
} {
  const filters: TransferListFilters = { order: query.order ?? "DESC", order_by: "CREATED_AT" }
  if (query.status) filters.statuses = [query.status]
  if (query["created_at.begin"]) filters["created_at.gte"] = query["created_at.begin"]
  if (query["created_at.end"]) filters["created_at.lte"] = query["created_at.end"]
  const local: ((t: Transfer) => boolean)[] = []
  if (query.ref_id !== undefined) filters.ref_ids = [query.ref_id]
  if (query.profile_id !== undefined) {
    const profileId = query.profile_id
    if (filters.ref_ids) local.push((t) => t.profile_id === profileId)
    else filters.profile_ids = [profileId]
  }
  if (query.type !== undefined) {
    const type = query.type
    if (filters.ref_ids || filters.profile_ids) local.push((t) => t.type === type)
    else filters.type = [type]
  }
  return { filters, keep: (t) => local.every((f) => f(t)) }
}

/** One page of the console's transfer list. */
export async function listConsoleTransfers(upstream: TransferOperations, query: ConsoleTransferListQuery): Promise<TransferPage> {
  const { filters, keep } = serviceFilters(query)
  const page = await upstream.listTransfers({ ...filters, limit: query.limit, page_cursor: query.page_cursor })
  const out: TransferPage = { items: page.items.filter(keep) }
  if (page.next_page_cursor) out.next_page_cursor = page.next_page_cursor
  return out
}
