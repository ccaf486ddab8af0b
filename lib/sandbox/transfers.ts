import "server-only"
import { randomBytes } from "node:crypto"
import { type SQL, and, eq, gt, gte, inArray, lt, lte } from "drizzle-orm"
import type { Db } from "@/lib/db/client"
import { type SandboxTransferRow, type SandboxTransferStatus, sandboxTransfers } from "@/lib/db/schema"
import { toDecimal } from "@/lib/money"
import { afterCursor, isUuid, keysetOrder, pageOf } from "@/lib/sandbox/cursor"
import { emitEvent } from "@/lib/sandbox/events"
import { assetAmount, timestamp } from "@/lib/sandbox/format"
import type { Tx } from "@/lib/sandbox/ledger"
import { badRequest, notFound } from "@/lib/sandbox/problems"
import { TIME_BOUNDS, TRANSFER_TYPES, type TransferListFilter, type TransferListQuery } from "@/lib/schemas/events-transfers"

const MAX_FILTER_VALUES = 100
const TRANSFER_TYPE_SET: ReadonlySet<string> = new Set(TRANSFER_TYPES)
/** The service: each of these "can be combined with created_at.* or updated_at.* filtering options only". */
const EXCLUSIVE_FILTERS: readonly TransferListFilter[] = ["profile_ids", "identity_ids", "ref_ids", "account_ids", "ids", "type"]
const EVM_NETWORKS = new Set(["ETHEREUM", "POLYGON_POS", "ARBITRUM_ONE", "BASE", "INK", "XLAYER", "AVALANCHE", "BNB", "ROBINHOOD"])

export type WireTransfer = Record<string, unknown> & { id: string; status: string }

/** A transfer as the service answers it (the reference's Transfer). Deposits here carry no fee. */
export function wireTransfer(row: SandboxTransferRow): WireTransfer {
  const amount = toDecimal(row.amount)
  const fee = toDecimal(row.fee)
  const total = row.direction === "CREDIT" ? amount.minus(fee) : amount.plus(fee)
  const out: WireTransfer = {
    id: row.id,
    customer_id: row.clientId,
    profile_id: row.profileId,
    amount: assetAmount(row.asset, amount),
    total: assetAmount(row.asset, total),
    fee: assetAmount(row.asset, fee),
    asset: row.asset,
    balance_asset: row.asset,
    direction: row.direction,
    type: row.type,
    status: row.status,
    created_at: timestamp(row.createdAt),
    updated_at: timestamp(row.updatedAt),
  }
  if (row.refId !== null) out.ref_id = row.refId
  if (row.cryptoNetwork !== null) out.crypto_network = row.cryptoNetwork
  if (row.cryptoAddress !== null) out.destination_address = row.cryptoAddress
  if (row.cryptoTxHash !== null) {
    out.crypto_tx_hash = row.cryptoTxHash
    out.crypto_tx_index = "0"
  }
  if (row.memo !== null) out.memo = row.memo
  if (row.groupId !== null) out.group_id = row.groupId
  return out
}

/** A made-up on-chain hash in the network's usual spelling (0x-prefixed on EVM chains). */
export function sandboxTxHash(network: string): string {
  const hex = randomBytes(32).toString("hex")
  return EVM_NETWORKS.has(network) ? `0x${hex}` : hex
}

/** `transfer.wire_deposit.pending`, `transfer.internal_transfer_credit.completed`, … */
function eventType(row: SandboxTransferRow): string {
  return `transfer.${row.type.toLowerCase()}.${row.status.toLowerCase()}`
}

/**
 * The events of a transfer's status: every status of a deposit; only the completion of an
 * internal transfer's legs (the service documents `internal_transfer_credit.completed` and
 * `…_debit.completed`).
 */
async function emitTransferEvent(tx: Tx, row: SandboxTransferRow, now: Date): Promise<void> {
  if (row.type.startsWith("INTERNAL_TRANSFER") && row.status !== "COMPLETED") return
  const object: Record<string, unknown> = {
    id: row.id,
    profile_id: row.profileId,
    type: row.type,
    direction: row.direction,
    status: row.status,
    asset: row.asset,
    amount: assetAmount(row.asset, row.amount),
  }
  if (row.refId !== null) object.ref_id = row.refId
  if (row.orchestrationId !== null) object.orchestration_id = row.orchestrationId
  await emitEvent(tx, { clientId: row.clientId, type: eventType(row), objectType: "transfer_status_change", object }, now)
}

export type NewTransfer = Omit<SandboxTransferRow, "fee" | "createdAt" | "updatedAt" | "cryptoTxHash" | "cryptoAddress" | "memo" | "groupId" | "orchestrationId" | "cryptoNetwork" | "refId"> &
  Partial<Pick<SandboxTransferRow, "cryptoAddress" | "memo" | "groupId" | "orchestrationId" | "cryptoNetwork" | "refId">>

/** Stores a transfer (and its event) in the caller's transaction. */
export async function insertTransfer(tx: Tx, input: NewTransfer, now: Date): Promise<SandboxTransferRow> {
  const network = input.cryptoNetwork ?? null
  const row: SandboxTransferRow = {
    refId: null,
    cryptoAddress: null,
    memo: null,
    groupId: null,
    orchestrationId: null,
    ...input,
    cryptoNetwork: network,
    cryptoTxHash: network === null ? null : sandboxTxHash(network),
    fee: "0",
    createdAt: now,
    updatedAt: now,
  }
  await tx.insert(sandboxTransfers).values(row)
  await emitTransferEvent(tx, row, now)
  return row
}

/** PENDING → COMPLETED or FAILED (and its event); null when it was not PENDING any more. */
export async function finishTransfer(tx: Tx, id: string, status: Exclude<SandboxTransferStatus, "PENDING">, now: Date): Promise<SandboxTransferRow | null> {
  const [row] = await tx
    .update(sandboxTransfers)
    .set({ status, updatedAt: now })
    .where(and(eq(sandboxTransfers.id, id), eq(sandboxTransfers.status, "PENDING")))
    .returning()
  if (!row) return null
  await emitTransferEvent(tx, row, now)
  return row
}

/** GET /v2/transfer/transfers and /v2/transfer/transfers/{id}: a client sees its own transfers. */
export class Transfers {
  constructor(private readonly db: Db) {}

  async get(clientId: string, id: string): Promise<WireTransfer> {
    if (isUuid(id)) {
      const [row] = await this.db
        .select()
        .from(sandboxTransfers)
        .where(and(eq(sandboxTransfers.clientId, clientId), eq(sandboxTransfers.id, id.toLowerCase())))
      if (row) return wireTransfer(row)
    }
    throw notFound(`transfer ${id} not found`)
  }

  async list(
    clientId: string,
    query: TransferListQuery,
    lists: Partial<Record<TransferListFilter, string[]>>,
  ): Promise<{ items: WireTransfer[]; next_page_cursor?: string }> {
    const t = sandboxTransfers
    const fields: Record<string, string> = {}
    for (const [name, values] of Object.entries(lists)) {
      if (values.length > MAX_FILTER_VALUES) fields[name] = `at most ${MAX_FILTER_VALUES} values`
    }
    const exclusive = EXCLUSIVE_FILTERS.filter((name) => (lists[name]?.length ?? 0) > 0)
    if (exclusive.length > 1) {
      for (const name of exclusive) fields[name] = `can be combined with created_at.* or updated_at.* filters only, not with ${exclusive.filter((n) => n !== name).join(", ")}`
    }
    const hasCreated = TIME_BOUNDS.some((k) => query[`created_at.${k}`] !== undefined)
    const hasUpdated = TIME_BOUNDS.some((k) => query[`updated_at.${k}`] !== undefined)
    if (hasCreated && hasUpdated) fields["updated_at"] = "cannot be combined with created_at filters"
    if (query.order_by === "UPDATED_AT" && hasCreated) fields["order_by"] = "must be CREATED_AT with created_at filters"
    if (query.order_by === "CREATED_AT" && hasUpdated) fields["order_by"] = "must be UPDATED_AT with updated_at filters"
    const badType = (lists.type ?? []).find((v) => !TRANSFER_TYPE_SET.has(v))
    if (badType !== undefined) fields["type"] = `unknown transfer type ${JSON.stringify(badType.slice(0, 40))}`
    const badStatus = (lists.statuses ?? []).find((v) => v !== "PENDING" && v !== "COMPLETED" && v !== "FAILED")
    if (badStatus !== undefined) fields["statuses"] = "must be PENDING, COMPLETED or FAILED"
    if (Object.keys(fields).length > 0) throw badRequest(fields)

    const byUpdated = query.order_by === "UPDATED_AT" || (query.order_by === undefined && hasUpdated)
    const order = query.order ?? (query.order_by === "UPDATED_AT" ? "ASC" : "DESC")
    const filters: SQL[] = [eq(t.clientId, clientId)]
    const uuids = (values: string[]) => values.filter(isUuid).map((v) => v.toLowerCase()).concat("00000000-0000-0000-0000-000000000000")
    if (lists.identity_ids?.length || lists.account_ids?.length) return { items: [] } // the sandbox keeps neither on a transfer
    if (lists.profile_ids?.length) filters.push(inArray(t.profileId, uuids(lists.profile_ids)))
    if (lists.ids?.length) filters.push(inArray(t.id, uuids(lists.ids)))
    if (lists.group_ids?.length) filters.push(inArray(t.groupId, uuids(lists.group_ids)))
    if (lists.ref_ids?.length) filters.push(inArray(t.refId, lists.ref_ids))
    if (lists.crypto_tx_hashes?.length) filters.push(inArray(t.cryptoTxHash, lists.crypto_tx_hashes))
    if (lists.type?.length) filters.push(inArray(t.type, lists.type as SandboxTransferRow["type"][]))
    if (lists.statuses?.length) filters.push(inArray(t.status, lists.statuses as SandboxTransferStatus[]))
    const ops = { lt, lte, eq, gte, gt }
    for (const key of TIME_BOUNDS) {
      const created = query[`created_at.${key}`]
      if (created !== undefined) filters.push(ops[key](t.createdAt, new Date(created)))
      const updated = query[`updated_at.${key}`]
      if (updated !== undefined) filters.push(ops[key](t.updatedAt, new Date(updated)))
    }
    const keys = { createdAt: byUpdated ? t.updatedAt : t.createdAt, id: t.id }
    const limit = query.limit ?? 100
    const rows = await this.db
      .select()
      .from(t)
      .where(and(...filters, afterCursor(keys, query.page_cursor, order)))
      .orderBy(...keysetOrder(keys, order))
      .limit(limit + 1)
    // Paged by the column it is ordered by: the cursor carries that column's value.
    const page = pageOf(rows.map((row) => ({ row, id: row.id, createdAt: byUpdated ? row.updatedAt : row.createdAt })), limit, order)
    const out: { items: WireTransfer[]; next_page_cursor?: string } = { items: page.items.map((p) => wireTransfer(p.row)) }
    if (page.next_page_cursor) out.next_page_cursor = page.next_page_cursor
    return out
  }
}
