import "server-only"
import { and, asc, desc, eq, gt, inArray, isNotNull, isNull, ne, notInArray, or, sql } from "drizzle-orm"
import type { Staff } from "@/lib/auth/roles"
import { endLapsed } from "@/lib/console/approvals/expiry"
import { recordFinalStatus } from "@/lib/console/intents"
import type { ConsoleDeps } from "@/lib/console/operations"
import { consoleApprovals, consoleIntents } from "@/lib/db/schema"
import { errorKind, log } from "@/lib/log"
import { formatAmount } from "@/lib/format"
import { FIAT_DECIMALS, toDecimal } from "@/lib/money"
import { TERMINAL_STATUSES, isConversionsApi, isTerminalStatus } from "@/lib/schemas/constants"
import type { NotificationEvent, NotificationPage } from "@/lib/schemas/notifications"
import { conversionPath, executionPath } from "@/lib/record-paths"

/**
 * Notifications: a person's own placements that reached a final status after they were
 * placed, and their approval requests that someone decided (or that expired).
 *
 * Each poll checks at most `checksPerPoll` of the person's placements still in flight at
 * the service (the least recently checked first, none twice within `recheckAfterMs` on
 * one instance), and stores a final status it learns on the intent (record_final_status,
 * record_final_at): the next poll, another tab or another instance reads it from there
 * and does not ask again. A failed check is logged and tried on a later poll; the answer
 * still carries every event already known.
 */
export const NOTIFICATION_LIMITS = {
  /** Service calls one poll may make, at most. */
  checksPerPoll: 3,
  /** A placement is not checked again within this long on one instance. */
  recheckAfterMs: 1_000,
  /** Placements older than this are no longer watched, and no older event is served. */
  lookbackMs: 24 * 60 * 60 * 1000,
  /** The cursor trails the clock by this much, so a decision committed late is not skipped; the client drops repeats by event id. */
  overlapMs: 60_000,
  /** Events of one kind per answer; the cursor stops at the last one served when there are more. */
  eventsPerPoll: 50,
  /** Placements in flight considered per poll. */
  watched: 100,
} as const

const CREATES = ["create_execution", "create_conversion"] as const
const DECISIONS = ["APPROVED", "REJECTED", "PRICE_MOVED", "EXPIRED"] as const

/** When each placement was last checked, per console instance (its deps). */
const lastCheckedByDeps = new WeakMap<ConsoleDeps, Map<string, number>>()

export interface NotificationOptions {
  now?: () => Date
  /**
   * The event reader is on: an orchestration's final status comes from its event
   * (lib/console/event-effects.ts), so placements through the Orchestrations API are not asked about.
   */
  eventsCoverOrchestrations?: boolean
}

interface Watched {
  id: string
  operation: string
  profileId: string | null
  recordId: string | null
  upstreamApi: string | null
}

async function serviceStatus(deps: ConsoleDeps, row: Watched): Promise<string> {
  const recordId = row.recordId ?? ""
  if (row.operation === "create_execution") return (await deps.upstream.getQuoteExecution(row.profileId ?? "", recordId)).status
  const api = isConversionsApi(row.upstreamApi) ? deps.upstream.conversionsVia(row.upstreamApi) : deps.upstream
  return (await api.getConversion(recordId)).status
}

/** Checks up to `checksPerPoll` of the person's placements in flight; returns how many were left unchecked. */
async function checkInFlight(deps: ConsoleDeps, staff: Staff, now: Date, eventsCoverOrchestrations: boolean): Promise<number> {
  const watched = await deps.db
    .select({
      id: consoleIntents.id,
      operation: consoleIntents.operation,
      profileId: consoleIntents.profileId,
      recordId: consoleIntents.recordId,
      upstreamApi: consoleIntents.upstreamApi,
    })
    .from(consoleIntents)
    .where(
      and(
        eq(consoleIntents.staffEmail, staff.email),
        inArray(consoleIntents.operation, [...CREATES]),
        eq(consoleIntents.state, "SUCCEEDED"),
        isNotNull(consoleIntents.recordId),
        // Final when placed: the page that placed it showed that; nothing to announce.
        or(isNull(consoleIntents.recordStatus), notInArray(consoleIntents.recordStatus, [...TERMINAL_STATUSES])),
        isNull(consoleIntents.recordFinalStatus),
        gt(consoleIntents.createdAt, new Date(now.getTime() - NOTIFICATION_LIMITS.lookbackMs)),
        // The reader covers orchestrations, but not one placed waiting for approval at the
        // service: the service sends no event when it rejects one.
        eventsCoverOrchestrations
          ? or(isNull(consoleIntents.upstreamApi), ne(consoleIntents.upstreamApi, "orchestrations"), eq(consoleIntents.recordStatus, "PENDING"))
          : undefined,
      ),
    )
    .orderBy(desc(consoleIntents.createdAt))
    .limit(NOTIFICATION_LIMITS.watched)
  let lastChecked = lastCheckedByDeps.get(deps)
  if (!lastChecked) lastCheckedByDeps.set(deps, (lastChecked = new Map<string, number>()))
  const checkedAt = lastChecked
  const due = watched
    .filter((row) => now.getTime() - (checkedAt.get(row.id) ?? 0) >= NOTIFICATION_LIMITS.recheckAfterMs)
    // Stable sort: never checked (0) first, then the longest ago; newest placement first among equals.
    .sort((a, b) => (checkedAt.get(a.id) ?? 0) - (checkedAt.get(b.id) ?? 0))
    .slice(0, NOTIFICATION_LIMITS.checksPerPoll)
  for (const row of due) checkedAt.set(row.id, now.getTime())
  let failed = 0
  await Promise.all(
    due.map(async (row) => {
      try {
        const status = await serviceStatus(deps, row)
        if (!isTerminalStatus(status)) return
        // Only the first to learn it writes: its time is the event's time.
        await recordFinalStatus(deps.db, row.id, status, now)
        checkedAt.delete(row.id)
      } catch (error) {
        failed++
        log.warn("notifications.check_failed", { intentId: row.id, error: errorKind(error) })
      }
    }),
  )
  // Forget placements no longer watched, so the map stays as small as the watch list.
  const watching = new Set(watched.map((row) => row.id))
  for (const id of checkedAt.keys()) if (!watching.has(id)) checkedAt.delete(id)
  return watched.length - due.length + failed
}

const STATUS_WORDS: Record<string, string> = { SETTLED: "settled", CANCELLED: "cancelled", COMPLETED: "completed", FAILED: "failed" }

function recordEvent(row: {
  id: string
  operation: string
  profileId: string | null
  refId: string | null
  recordId: string | null
  recordFinalStatus: string | null
  recordFinalAt: Date | null
  request: Record<string, unknown>
}): NotificationEvent {
  const status = row.recordFinalStatus ?? ""
  const recordId = row.recordId ?? ""
  const word = STATUS_WORDS[status] ?? status.toLowerCase()
  const execution = row.operation === "create_execution"
  const field = (name: string) => {
    const value = row.request[name]
    return typeof value === "string" ? value : ""
  }
  const what = execution ? `Execution ${recordId}` : `Conversion of ${field("amount")} ${field("source_asset")} → ${field("target_asset")}`
  return {
    id: `${execution ? "execution" : "conversion"}:${row.id}:${status}`,
    kind: execution ? "execution" : "conversion",
    state: status,
    at: (row.recordFinalAt ?? new Date(0)).toISOString(),
    record_id: recordId,
    title: `${execution ? "Execution" : "Conversion"} ${word}`,
    detail: `${what} (ref_id ${row.refId ?? ""}) is ${status}.`,
    href: execution ? executionPath(row.profileId ?? "", recordId) : conversionPath(recordId),
  }
}

const DECISION_TITLES: Record<string, string> = {
  APPROVED: "Request approved",
  REJECTED: "Request rejected",
  PRICE_MOVED: "Request not placed: the price moved",
  EXPIRED: "Request expired",
}

function approvalEvent(row: {
  intentId: string
  kind: string
  state: string
  decidedAt: Date | null
  sizeAmount: string
  sizeCurrency: string
  market: string | null
  side: string | null
  checkerEmail: string | null
  reason: string | null
  recordId: string | null
  profileId: string | null
}): NotificationEvent {
  const size = `${formatAmount(toDecimal(row.sizeAmount).toFixed(FIAT_DECIMALS), row.sizeCurrency)} ${row.sizeCurrency}`
  const what = row.kind === "execution" ? `Your ${row.side ?? ""} ${row.market ?? ""} request of ${size}` : `Your conversion request of ${size}`
  const by = row.checkerEmail ? ` by ${row.checkerEmail}` : ""
  const detail =
    row.state === "APPROVED"
      ? `${what} was approved${by} and sent.`
      : row.state === "REJECTED"
        ? `${what} was rejected${by}${row.reason ? `: ${row.reason}` : ""}.`
        : row.state === "PRICE_MOVED"
          ? `${what} was approved${by}, but the held price was past your limit; nothing was placed.`
          : `${what} expired before anyone decided; nothing was sent.`
  // Once placed, the record is the place to go; until then the request list.
  const href =
    row.state === "APPROVED" && row.recordId
      ? row.kind === "execution"
        ? executionPath(row.profileId ?? "", row.recordId)
        : conversionPath(row.recordId)
      : "/approvals"
  return {
    id: `approval:${row.intentId}:${row.state}`,
    kind: "approval",
    state: row.state,
    at: (row.decidedAt ?? new Date(0)).toISOString(),
    record_id: row.intentId,
    title: DECISION_TITLES[row.state] ?? row.state,
    detail,
    href,
  }
}

/**
 * One poll. Without `since` (a browser's first) nothing before now is news: the answer
 * carries only a cursor, now. With it, every event after `since` (at most a day back).
 */
export async function pollNotifications(
  deps: ConsoleDeps,
  staff: Staff,
  since: Date | null,
  options: NotificationOptions = {},
): Promise<NotificationPage> {
  const now = (options.now ?? (() => new Date()))()
  // Expiry (and a lapsed maker's voiding) is recorded when someone looks; this poll is someone looking.
  await endLapsed(deps.db, now)
  const unchecked = await checkInFlight(deps, staff, now, options.eventsCoverOrchestrations ?? false)
  // A first poll starts from now: what it has just learned (stamped now) is not news either.
  if (!since) return { events: [], cursor: now.toISOString(), unchecked }
  let cursor = new Date(now.getTime() - NOTIFICATION_LIMITS.overlapMs)
  const from = new Date(Math.max(since.getTime(), now.getTime() - NOTIFICATION_LIMITS.lookbackMs))
  const limit = NOTIFICATION_LIMITS.eventsPerPoll
  const records = await deps.db
    .select({
      id: consoleIntents.id,
      operation: consoleIntents.operation,
      profileId: consoleIntents.profileId,
      refId: consoleIntents.refId,
      recordId: consoleIntents.recordId,
      recordFinalStatus: consoleIntents.recordFinalStatus,
      recordFinalAt: consoleIntents.recordFinalAt,
      request: consoleIntents.request,
    })
    .from(consoleIntents)
    .where(and(eq(consoleIntents.staffEmail, staff.email), isNotNull(consoleIntents.recordFinalAt), gt(consoleIntents.recordFinalAt, from)))
    .orderBy(asc(consoleIntents.recordFinalAt))
    .limit(limit)
  const decisions = await deps.db
    .select({
      intentId: consoleApprovals.intentId,
      kind: consoleApprovals.kind,
      state: consoleApprovals.state,
      decidedAt: consoleApprovals.decidedAt,
      sizeAmount: consoleApprovals.sizeAmount,
      sizeCurrency: consoleApprovals.sizeCurrency,
      market: consoleApprovals.market,
      side: consoleApprovals.side,
      checkerEmail: consoleApprovals.checkerEmail,
      reason: consoleApprovals.reason,
      recordId: consoleIntents.recordId,
      profileId: consoleIntents.profileId,
    })
    .from(consoleApprovals)
    .innerJoin(consoleIntents, eq(consoleIntents.id, consoleApprovals.intentId))
    .where(
      and(
        sql`lower(${consoleApprovals.makerEmail}) = lower(${staff.email})`,
        inArray(consoleApprovals.state, [...DECISIONS]),
        isNotNull(consoleApprovals.decidedAt),
        gt(consoleApprovals.decidedAt, from),
      ),
    )
    .orderBy(asc(consoleApprovals.decidedAt))
    .limit(limit)
  // More than one answer holds: the cursor stays at the last event served, the rest come next.
  for (const page of [records.map((r) => r.recordFinalAt), decisions.map((d) => d.decidedAt)]) {
    const last = page.at(-1)
    if (page.length === limit && last && last < cursor) cursor = new Date(last.getTime() - 1)
  }
  const events = [...records.map(recordEvent), ...decisions.map(approvalEvent)].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0))
  return { events, cursor: cursor.toISOString(), unchecked }
}
