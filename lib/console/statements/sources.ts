import "server-only"
import { and, inArray, sql } from "drizzle-orm"
import type { Db } from "@/lib/db/client"
import { consoleIntents } from "@/lib/db/schema"
import { type Decimal, toDecimal } from "@/lib/money"
import { conversionPath, executionPath, transferPath } from "@/lib/record-paths"
import type { Conversion, QuoteExecution } from "@/lib/schemas/records"
import type { Transfer } from "@/lib/schemas/transfer"
import { transferTypeLabel } from "@/lib/schemas/transfer-constants"
import type { UpstreamClient } from "@/lib/upstream"
import type { Leg, MovementKind, SourceRecord } from "@/lib/console/statements/types"

/**
 * The records a statement reads, from the service: quote executions (two legs at
 * settlement), conversions of the Stablecoin Conversions API (two legs at settlement),
 * and transfers (deposits, withdrawals, and the legs of orchestrations, paired by their
 * group into one record). Who placed each through the console comes from the intent log,
 * by ref_id; a record no intent names was placed elsewhere.
 */

export type StatementUpstream = Pick<UpstreamClient, "listQuoteExecutions" | "listTransfers" | "conversionsVia">

/** Records placed this long before the period may settle inside it: they are read too. */
export const SETTLEMENT_LOOKBACK_MS = 2 * 86_400_000
const PAGE = 1000
/** A period whose records fill more pages than this is refused rather than answered short. */
const MAX_PAGES = 50

/** Decimals are immutable: one zero serves every leg without a fee, one parse every leg of the same amount. */
const ZERO = toDecimal("0")
const leg = (asset: string, direction: Leg["direction"], amount: Decimal, fee?: string): Leg => ({ asset, direction, amount, fee: fee ? toDecimal(fee) : ZERO })

async function allPages<T>(fetchPage: (cursor: string | undefined) => Promise<{ items: T[]; next_page_cursor?: string | undefined }>): Promise<T[]> {
  const out: T[] = []
  let cursor: string | undefined
  for (let page = 0; page < MAX_PAGES; page++) {
    const answer = await fetchPage(cursor)
    out.push(...answer.items)
    cursor = answer.next_page_cursor
    if (!cursor) return out
  }
  throw new Error(`more than ${MAX_PAGES * PAGE} records in the period: narrow it`)
}

export function executionRecord(profileId: string, e: QuoteExecution): SourceRecord {
  const buy = e.side === "BUY"
  const toOther = e.recipient_profile_id !== undefined && e.recipient_profile_id !== profileId
  // Each amount parsed once: the legs and the trade share it.
  const base = toDecimal(e.base_amount)
  const quote = toDecimal(e.quote_amount)
  const paid = buy ? leg(e.quote_asset, "DEBIT", quote) : leg(e.base_asset, "DEBIT", base)
  const got = buy ? leg(e.base_asset, "CREDIT", base) : leg(e.quote_asset, "CREDIT", quote)
  const settled = e.status === "SETTLED"
  return {
    id: e.id,
    kind: "execution",
    label: `${buy ? "Buy" : "Sell"} ${e.market}`,
    href: executionPath(profileId, e.id),
    refId: e.ref_id ?? null,
    placedBy: null,
    status: e.status,
    createdAt: new Date(e.created_at),
    movedAt: settled ? new Date(e.settled_at ?? e.created_at) : null,
    open: !settled,
    legs: toOther ? [paid] : [paid, got],
    trade: { market: e.market, side: e.side, base, quote, baseAsset: e.base_asset, quoteAsset: e.quote_asset, price: toDecimal(e.price) },
  }
}

export function conversionRecord(profileId: string, c: Conversion): SourceRecord | null {
  if (!c.amount || !c.source_asset || !c.target_asset || !c.created_at) return null
  const settled = c.status === "SETTLED"
  const toOther = c.recipient_profile_id !== undefined && c.recipient_profile_id !== profileId
  const amount = toDecimal(c.amount)
  const legs = [leg(c.source_asset, "DEBIT", amount)]
  if (!toOther) legs.push(leg(c.target_asset, "CREDIT", amount))
  return {
    id: c.id,
    kind: "conversion",
    label: `Conversion ${c.source_asset} → ${c.target_asset}`,
    href: conversionPath(c.id),
    refId: c.ref_id ?? null,
    placedBy: null,
    status: c.status,
    createdAt: new Date(c.created_at),
    movedAt: settled ? new Date(c.settled_at ?? c.updated_at ?? c.created_at) : null,
    open: c.status === "CREATED",
    legs,
  }
}

function transferLeg(t: Transfer): Leg {
  const credit = t.direction ? t.direction === "CREDIT" : /DEPOSIT|_CREDIT$/.test(t.type)
  return leg(t.balance_asset ?? t.asset, credit ? "CREDIT" : "DEBIT", toDecimal(t.amount), t.fee)
}

function transferKind(t: Transfer): MovementKind {
  if (t.type.endsWith("DEPOSIT")) return "deposit"
  if (t.type.endsWith("WITHDRAWAL")) return "withdrawal"
  return "transfer"
}

/** Transfers as records: an orchestration's debit and credit legs (one group) are one record with two legs. */
export function transferRecords(transfers: readonly Transfer[]): SourceRecord[] {
  const out: SourceRecord[] = []
  const groups = new Map<string, Transfer[]>()
  for (const t of transfers) {
    if (t.group_id && t.type.startsWith("INTERNAL_TRANSFER")) groups.set(t.group_id, [...(groups.get(t.group_id) ?? []), t])
    else {
      const completed = t.status === "COMPLETED"
      out.push({
        id: t.id,
        kind: transferKind(t),
        label: transferTypeLabel(t.type),
        href: transferPath(t.id),
        refId: t.ref_id ?? null,
        placedBy: null,
        status: t.status,
        createdAt: new Date(t.created_at),
        movedAt: completed ? new Date(t.updated_at ?? t.created_at) : null,
        open: t.status === "PENDING",
        legs: [transferLeg(t)],
      })
    }
  }
  for (const [groupId, legs] of groups) {
    const sorted = [...legs].sort((a, b) => (a.direction === "DEBIT" ? -1 : 0) - (b.direction === "DEBIT" ? -1 : 0))
    const done = sorted.filter((t) => t.status === "COMPLETED")
    const debit = sorted.find((t) => t.direction === "DEBIT")
    const credit = sorted.find((t) => t.direction === "CREDIT")
    const first = sorted[0]!
    const times = done.map((t) => Date.parse(t.updated_at ?? t.created_at)).sort((a, b) => b - a)
    out.push({
      id: groupId,
      kind: "orchestration",
      label: `Orchestration ${debit?.asset ?? "?"} → ${credit?.asset ?? "?"}`,
      href: conversionPath(groupId),
      refId: first.ref_id ?? null,
      placedBy: null,
      status: sorted.some((t) => t.status === "PENDING") ? "PENDING" : first.status,
      createdAt: new Date(Math.min(...sorted.map((t) => Date.parse(t.created_at)))),
      movedAt: times[0] !== undefined ? new Date(times[0]) : null,
      open: sorted.some((t) => t.status === "PENDING"),
      legs: done.map(transferLeg),
    })
  }
  return out
}

/** Every record of `profileId` that may have moved its balance in [from, end], with who placed it through the console. */
export async function statementRecords(db: Db, upstream: StatementUpstream, profileId: string, from: Date, end: Date): Promise<SourceRecord[]> {
  const begin = new Date(from.getTime() - SETTLEMENT_LOOKBACK_MS).toISOString()
  const until = end.toISOString()
  const conversionsApi = upstream.conversionsVia("stablecoin-conversions")
  const [executions, conversions, transfers] = await Promise.all([
    allPages((cursor) => upstream.listQuoteExecutions(profileId, { "created_at.begin": begin, "created_at.end": until, order: "ASC", limit: PAGE, page_cursor: cursor })),
    allPages((cursor) => conversionsApi.listConversions({ profile_id: profileId, "created_at.begin": begin, "created_at.end": until, order: "ASC", limit: PAGE, page_cursor: cursor })),
    allPages((cursor) => upstream.listTransfers({ profile_ids: [profileId], "created_at.gte": begin, "created_at.lte": until, order: "ASC", order_by: "CREATED_AT", limit: PAGE, page_cursor: cursor })),
  ])
  const conversionRefs = new Set(conversions.flatMap((c) => (c.ref_id ? [c.ref_id] : [])))
  const records = [
    ...executions.map((e) => executionRecord(profileId, e)),
    ...conversions.flatMap((c) => conversionRecord(profileId, c) ?? []),
    // A conversion the service also lists as transfers is counted once, as the conversion.
    ...transferRecords(transfers.filter((t) => !(t.ref_id && conversionRefs.has(t.ref_id)))),
  ]
  const refs = [...new Set(records.flatMap((r) => (r.refId ? [r.refId] : [])))]
  const placed = new Map<string, string>()
  if (refs.length > 0) {
    // One query whatever the count: the refs go as one JSON parameter (a list of thousands
    // of bind parameters cost more to build and parse than the look-up itself).
    const rows = await db
      .select({ refId: consoleIntents.refId, staffEmail: consoleIntents.staffEmail })
      .from(consoleIntents)
      .where(
        and(
          inArray(consoleIntents.operation, ["create_execution", "create_conversion"]),
          sql`${consoleIntents.refId} in (select jsonb_array_elements_text(${JSON.stringify(refs)}::jsonb))`,
        ),
      )
    for (const row of rows) if (row.refId) placed.set(row.refId, row.staffEmail)
  }
  // The records were built here: each takes its placer in place rather than as a copy.
  for (const r of records) r.placedBy = r.refId ? (placed.get(r.refId) ?? null) : null
  return records
}
