import "server-only"
import { and, asc, eq, gte, inArray, lt, notInArray, sql } from "drizzle-orm"
import type { Db } from "@/lib/db/client"
import { type IntentState, consoleIntents } from "@/lib/db/schema"
import { type Decimal, tryDecimal } from "@/lib/money"
import type { MovementKind, SourceRecord } from "@/lib/console/statements/types"

/**
 * Reconciliation of the console's creates with the service's records for a statement's
 * period. Matched by ref_id (the console sends one with every create), else by the
 * record id the service answered. The service's records are the ones the statement has
 * read already (one record per resource: an execution's or an orchestration's two legs
 * are one record), so reconciling costs no extra reads of the service.
 *
 * - `missing_at_service`: a create the console sent (or may have sent) in the period
 *   whose record the service does not list.
 * - `placed_elsewhere`: a record created at the service in the period that no console
 *   intent placed (another client of the service): listed, not an error.
 * - `status_differs`: the console learned a final status the service's record does not
 *   have (a status the console has not caught up with yet is not a difference).
 * - `amount_differs`: the amount the console asked for is not the record's.
 */

export type ReconciliationKind = "missing_at_service" | "placed_elsewhere" | "status_differs" | "amount_differs"

export interface ReconciliationLine {
  kind: ReconciliationKind
  /** What the record is (or was asked to be). */
  record_kind: MovementKind
  /** The console's side: its intent and that intent's page; null for a record placed elsewhere. */
  console: { intent_id: string; href: string; placed_by: string; state: string; status: string | null; amount: string | null; created_at: string } | null
  /** The service's side: its record id and the record's page; the id the console was answered for a missing record, or null if it never was. */
  service: { id: string | null; href: string | null; ref_id: string | null; status: string | null; amount: string | null; created_at: string | null }
  /** What differs, in words. */
  detail: string
}

export interface Reconciliation {
  /** The console's creates for the profile in the period that were (or may have been) sent. */
  console_creates: number
  /** The service's executions, conversions and orchestrations created in the period. */
  service_records: number
  /** Pairs found on both sides that agree. */
  matched: number
  lines: ReconciliationLine[]
}

/** A console create, as reconciliation reads it. */
export interface ConsoleCreate {
  id: string
  operation: "create_execution" | "create_conversion"
  staffEmail: string
  state: string
  refId: string | null
  recordId: string | null
  /** What the service answered at placement, or the final status the console learned later. */
  status: string | null
  finalStatus: string | null
  /** The request's amount fields (`amount`, `base_amount`, `quote_amount`) held as strings; a read from the database carries no other. */
  request: Record<string, unknown>
  /** "orchestrations" for a conversion sent to the Orchestrations API. */
  upstreamApi: string | null
  createdAt: Date
}

/** States of an intent that never reached the service: nothing to find there. */
const NEVER_SENT: IntentState[] = ["AWAITING_APPROVAL", "REFUSED", "FAILED"]
const PLACEABLE: readonly MovementKind[] = ["execution", "conversion", "orchestration"]

/** The profile's creates written in [from, to) that were, or may have been, sent to the service. */
export async function consoleCreatesBetween(db: Db, profileId: string, from: Date, to: Date): Promise<ConsoleCreate[]> {
  const i = consoleIntents
  // Read under ConsoleCreate's own names; the intents that never reached the service are left out by the query.
  const rows = await db
    .select({
      id: i.id,
      operation: i.operation,
      staffEmail: i.staffEmail,
      state: i.state,
      refId: i.refId,
      recordId: i.recordId,
      status: i.recordStatus,
      finalStatus: i.recordFinalStatus,
      amount: askedField("amount"),
      baseAmount: askedField("base_amount"),
      quoteAmount: askedField("quote_amount"),
      upstreamApi: i.upstreamApi,
      createdAt: i.createdAt,
    })
    .from(consoleIntents)
    .where(
      and(
        inArray(i.operation, ["create_execution", "create_conversion"]),
        eq(i.profileId, profileId),
        gte(i.createdAt, from),
        lt(i.createdAt, to),
        notInArray(i.state, NEVER_SENT),
      ),
    )
    .orderBy(asc(i.createdAt), asc(i.seq))
  return rows.map(({ amount, baseAmount, quoteAmount, ...r }) => {
    const request: Record<string, string> = {}
    if (amount !== null) request.amount = amount
    if (baseAmount !== null) request.base_amount = baseAmount
    if (quoteAmount !== null) request.quote_amount = quoteAmount
    return { ...r, operation: r.operation as ConsoleCreate["operation"], request }
  })
}

/**
 * One amount field of an intent's request, when the request holds it as a string (as
 * `askedAmount` reads it), else null: read in the query, so the thousands of requests of a
 * month are not each decoded as JSON for the three fields reconciliation compares.
 */
function askedField(key: "amount" | "base_amount" | "quote_amount") {
  const field = sql.raw(`'${key}'`)
  return sql<string | null>`case when jsonb_typeof(${consoleIntents.request} -> ${field}) = 'string' then ${consoleIntents.request} ->> ${field} end`
}

const intentPath = (id: string) => `/intents/${encodeURIComponent(id)}`

/** The amount a create asked for, and which of the record's amounts it is compared with. */
function askedAmount(c: ConsoleCreate): { value: Decimal; of: "base" | "quote" | "amount" } | null {
  const pick = (key: string) => (typeof c.request[key] === "string" ? tryDecimal(c.request[key]) : null)
  if (c.operation === "create_conversion") {
    const v = pick("amount")
    return v ? { value: v, of: "amount" } : null
  }
  const base = pick("base_amount")
  if (base) return { value: base, of: "base" }
  const quote = pick("quote_amount")
  return quote ? { value: quote, of: "quote" } : null
}

function recordAmount(r: SourceRecord, of: "base" | "quote" | "amount"): Decimal | null {
  if (of === "base") return r.trade?.base ?? null
  if (of === "quote") return r.trade?.quote ?? null
  // A conversion's or orchestration's amount: its debit leg (an orchestration lists legs once they moved).
  return r.legs.find((l) => l.direction === "DEBIT")?.amount ?? r.legs[0]?.amount ?? null
}

function recordAmountString(r: SourceRecord): string | null {
  if (r.trade) return `${r.trade.base.toFixed()} ${r.trade.baseAsset} for ${r.trade.quote.toFixed()} ${r.trade.quoteAsset}`
  const debit = r.legs.find((l) => l.direction === "DEBIT") ?? r.legs[0]
  return debit ? `${debit.amount.toFixed()} ${debit.asset}` : null
}

const ORCHESTRATION_UNMOVED = new Set(["PENDING", "REJECTED"])
const FINAL = new Set(["SETTLED", "CANCELLED", "COMPLETED", "FAILED", "REJECTED"])

function consoleSide(c: ConsoleCreate): NonNullable<ReconciliationLine["console"]> {
  const asked = askedAmount(c)
  return {
    intent_id: c.id,
    href: intentPath(c.id),
    placed_by: c.staffEmail,
    state: c.state,
    status: c.finalStatus ?? c.status,
    amount: asked ? `${asked.value.toFixed()} (${asked.of === "amount" ? "amount" : `${asked.of}_amount`})` : null,
    created_at: c.createdAt.toISOString(),
  }
}

function serviceSide(r: SourceRecord): ReconciliationLine["service"] {
  return { id: r.id, href: r.href, ref_id: r.refId, status: r.status, amount: recordAmountString(r), created_at: r.createdAt.toISOString() }
}

/**
 * Pairs the console's creates of [from, to) with the service's records. `records` may
 * reach beyond the period (the statement reads a lookback and up to its closing
 * observation): a create is matched against all of them, but only records created in the
 * period are listed as placed elsewhere.
 */
export function reconcile(creates: readonly ConsoleCreate[], records: readonly SourceRecord[], from: Date, to: Date): Reconciliation {
  const placeable = records.filter((r) => PLACEABLE.includes(r.kind))
  const byRef = new Map(placeable.flatMap((r) => (r.refId ? [[r.refId, r] as const] : [])))
  const byId = new Map(placeable.map((r) => [r.id, r]))
  const seen = new Set<SourceRecord>()
  const lines: ReconciliationLine[] = []
  let matched = 0
  for (const c of creates) {
    const record = (c.refId ? byRef.get(c.refId) : undefined) ?? (c.recordId ? byId.get(c.recordId) : undefined)
    if (!record) {
      // An orchestration is read through its transfers, which exist once it moved funds:
      // one waiting for approval or rejected has none to find, and is not missing.
      if (c.upstreamApi === "orchestrations" && ORCHESTRATION_UNMOVED.has(c.finalStatus ?? c.status ?? "PENDING")) continue
      lines.push({
        kind: "missing_at_service",
        record_kind: c.operation === "create_execution" ? "execution" : "conversion",
        console: consoleSide(c),
        service: { id: c.recordId, href: null, ref_id: c.refId, status: null, amount: null, created_at: null },
        detail: c.recordId ? `the service answered ${c.recordId} but no longer lists it` : "the service lists no record with this ref_id",
      })
      continue
    }
    seen.add(record)
    const known = c.finalStatus ?? c.status
    const asked = askedAmount(c)
    const got = asked ? recordAmount(record, asked.of) : null
    let differs = false
    if (known && FINAL.has(known) && known !== record.status) {
      differs = true
      lines.push({ kind: "status_differs", record_kind: record.kind, console: consoleSide(c), service: serviceSide(record), detail: `the console has ${known}, the service ${record.status}` })
    }
    if (asked && got && !asked.value.equals(got)) {
      differs = true
      lines.push({ kind: "amount_differs", record_kind: record.kind, console: consoleSide(c), service: serviceSide(record), detail: `asked ${asked.value.toFixed()}, the service has ${got.toFixed()}` })
    }
    if (!differs) matched++
  }
  const inPeriod = placeable.filter((r) => r.createdAt >= from && r.createdAt < to)
  for (const r of inPeriod) {
    if (seen.has(r) || r.placedBy) continue
    lines.push({ kind: "placed_elsewhere", record_kind: r.kind, console: null, service: serviceSide(r), detail: "no console intent placed this record" })
  }
  return { console_creates: creates.length, service_records: inPeriod.length, matched, lines }
}
