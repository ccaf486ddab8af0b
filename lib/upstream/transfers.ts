import "server-only"
import { type Transfer, type TransferPage, transferPageSchema, transferSchema } from "@/lib/schemas/transfer"
import type { TimeBound } from "@/lib/schemas/events-transfers"
import { type ApiContext, seg } from "@/lib/upstream/api-context"

/**
 * The service's Transfers API (GET /v2/transfer/transfers, scope transfer:read_transfer):
 * every movement of a profile's funds, read only. The console's token carries the scope
 * (UPSTREAM_SCOPES); answers are parsed with lib/schemas/transfer.ts.
 */

/** The service's list filters, as it spells them. */
export type TransferListFilters = {
  /** At most 100 values each. The service takes one of profile_ids, ref_ids, ids and type per request (with created_at.* or updated_at.*). */
  profile_ids?: readonly string[] | undefined
  ref_ids?: readonly string[] | undefined
  ids?: readonly string[] | undefined
  type?: readonly string[] | undefined
  crypto_tx_hashes?: readonly string[] | undefined
  statuses?: readonly string[] | undefined
  order?: "ASC" | "DESC" | undefined
  order_by?: "CREATED_AT" | "UPDATED_AT" | undefined
  /** 1 to 1000; the service's default is 100. */
  limit?: number | undefined
  page_cursor?: string | undefined
} & { [K in `created_at.${TimeBound}` | `updated_at.${TimeBound}`]?: string | undefined }

/** The most rows one page of the service's transfer list holds. */
export const TRANSFER_PAGE_MAX = 1000

const read = (ctx: ApiContext) => ({ method: "GET" as const, scopes: ctx.scopes, retry: true, mutating: false })

/** GET /v2/transfer/transfers: one page of the transfers the filters select. */
export async function listTransfers(ctx: ApiContext, filters: TransferListFilters = {}): Promise<TransferPage> {
  const url = ctx.apiUrl("/transfer/transfers", { ...filters })
  return (await ctx.call({ ...read(ctx), op: "listTransfers", url, schema: transferPageSchema })).value
}

/** GET /v2/transfer/transfers/{id}: one transfer (404 at the service: UpstreamProblemError). */
export async function getTransfer(ctx: ApiContext, id: string): Promise<Transfer> {
  const url = ctx.apiUrl(`/transfer/transfers/${seg(id)}`)
  return (await ctx.call({ ...read(ctx), op: "getTransfer", url, schema: transferSchema })).value
}
