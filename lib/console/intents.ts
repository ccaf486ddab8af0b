import "server-only"
import { type SQL, and, eq, inArray, isNull, notInArray, or, sql } from "drizzle-orm"
import type { Staff } from "@/lib/auth/roles"
import type { Db } from "@/lib/db/client"
import { sameAmount } from "@/lib/money"
import { type ConsoleIntent, type IntentOperation, type IntentState, consoleIntents } from "@/lib/db/schema"
import { consoleProblemBody } from "@/lib/problem"
import { type ConversionsApi, TERMINAL_STATUSES } from "@/lib/schemas/constants"
import type { Problem } from "@/lib/schemas/problem"
import { inDbSpan } from "@/lib/tracing"
import { isUpstreamError, upstreamErrorToProblem } from "@/lib/upstream"

/**
 * The one owner of console_intents: every row is written here, and only here. Callers
 * that write in a transaction of their own (admission, approvals, the policy) hand it in.
 */

export type IntentOutcome =
  | { state: "SUCCEEDED"; recordId: string; recordStatus: string; attempts: number; profileId?: string | undefined }
  | { state: "FAILED" | "UNKNOWN"; problem: Record<string, unknown>; attempts: number }

/** What an intent is keyed by: a create by its ref_id, a cancel by the record it cancels. */
export type IntentKey = { refId: string } | { targetId: string }

/** A create's intent by its ref_id: the look-up every reader of a ref_id uses. */
function byRef(operation: IntentOperation, refId: string): SQL | undefined {
  return and(eq(consoleIntents.operation, operation), eq(consoleIntents.refId, refId))
}

export async function intentByRef(db: Db, operation: IntentOperation, refId: string): Promise<ConsoleIntent | null> {
  const [row] = await db.select().from(consoleIntents).where(byRef(operation, refId)).limit(1)
  return row ?? null
}

/** The id of the intent under this ref_id, or null: as a value inside another statement. */
export function intentIdByRef(db: Db, operation: IntentOperation, refId: string): SQL<string | null> {
  return sql<string | null>`(${db.select({ id: consoleIntents.id }).from(consoleIntents).where(byRef(operation, refId)).limit(1)})`
}

export interface NewIntent {
  staff: Staff
  operation: IntentOperation
  profileId: string | null
  request: Record<string, unknown>
  /** Which conversion API a conversion's create or cancel goes to. */
  upstreamApi?: ConversionsApi | undefined
}

/** Who asked for what: the columns every intent starts with. */
function newRow(input: NewIntent) {
  return {
    staffEmail: input.staff.email,
    staffRole: input.staff.role,
    operation: input.operation,
    profileId: input.profileId,
    request: input.request,
    upstreamApi: input.upstreamApi ?? null,
  }
}

/**
 * Writes an admitted create in the caller's transaction (the one that checked its limits):
 * PENDING to be sent now, or AWAITING_APPROVAL for a second person. Null when its ref_id
 * has an intent already (written meanwhile by another instance).
 */
export async function insertAdmittedIntent(
  tx: Db,
  input: NewIntent & {
    refId: string
    state: "PENDING" | "AWAITING_APPROVAL"
    size: { amount: string; currency: string }
    at: Date
    /** The market and side of a quote execution. */
    quote?: { market: string; side: string } | undefined
  },
): Promise<ConsoleIntent | null> {
  const [row] = await tx
    .insert(consoleIntents)
    .values({
      ...newRow(input),
      refId: input.refId,
      market: input.quote?.market ?? null,
      side: input.quote?.side ?? null,
      state: input.state,
      sizeAmount: input.size.amount,
      sizeCurrency: input.size.currency,
      createdAt: input.at,
      updatedAt: input.at,
    })
    .onConflictDoNothing()
    .returning()
  return row ?? null
}

/**
 * Writes the PENDING row before anything is sent. A create whose ref_id already has an
 * intent gets that row back instead (`created: false`): a retry or double submission.
 */
export function openIntent(db: Db, input: NewIntent & IntentKey): Promise<{ intent: ConsoleIntent; created: boolean }> {
  return inDbSpan("intent.open", () => insertIntent(db, input), { "console.operation": input.operation })
}

async function insertIntent(db: Db, input: NewIntent & IntentKey): Promise<{ intent: ConsoleIntent; created: boolean }> {
  const refId = "refId" in input ? input.refId : null
  const inserted = await db
    .insert(consoleIntents)
    .values({ ...newRow(input), refId, targetId: "targetId" in input ? input.targetId : null })
    .onConflictDoNothing()
    .returning()
  const row = inserted[0]
  if (row) return { intent: row, created: true }
  // Only a create's ref_id is unique; a cancel is written every time it is asked for.
  if (refId === null) throw new Error("intent insert conflicted without a ref_id")
  const existing = await intentByRef(db, input.operation, refId)
  if (!existing) throw new Error("intent insert conflicted but no intent was found")
  return { intent: existing, created: false }
}

/**
 * A create the console refused before sending anything, on the audit trail: REFUSED with
 * the problem it was answered with. It holds no ref_id (the request keeps the one sent),
 * so a corrected order may use it; it counts toward no limit and is never retried.
 */
export function recordRefusal(db: Db, input: Refusal): Promise<ConsoleIntent> {
  return inDbSpan("refusal.write", () => insertRefusal(db, input), { "console.operation": input.operation })
}

type Refusal = NewIntent & {
  problem: Problem
  at: Date
  market?: string | null | undefined
  side?: string | null | undefined
  size?: { amount: string; currency: string } | null | undefined
}

async function insertRefusal(db: Db, input: Refusal): Promise<ConsoleIntent> {
  const [row] = await db
    .insert(consoleIntents)
    .values({
      ...newRow(input),
      state: "REFUSED",
      attempts: 0,
      problem: { ...input.problem },
      market: input.market ?? null,
      side: input.side ?? null,
      sizeAmount: input.size?.amount ?? null,
      sizeCurrency: input.size?.currency ?? null,
      createdAt: input.at,
      updatedAt: input.at,
      resolvedAt: input.at,
    })
    .returning()
  if (!row) throw new Error("refusal insert returned no row")
  return row
}

/** A policy change on the audit trail, written SUCCEEDED in the transaction that saves it. */
export async function recordPolicyChange(tx: Db, staff: Staff, change: { before: unknown; after: unknown; version: number } & Record<string, unknown>, at: Date): Promise<void> {
  await tx.insert(consoleIntents).values({
    ...newRow({ staff, operation: "update_policy", profileId: null, request: { ...change } }),
    targetId: "policy",
    state: "SUCCEEDED",
    attempts: 0,
    createdAt: at,
    updatedAt: at,
    resolvedAt: at,
  })
}

/** An admin's replay of one service event on the audit trail, written SUCCEEDED (or FAILED with the reason) once it ran. */
export async function recordEventReplay(
  db: Db,
  staff: Staff,
  replay: { eventId: string; type: string; status: string; error: string | null },
  at: Date,
): Promise<void> {
  await db.insert(consoleIntents).values({
    ...newRow({ staff, operation: "replay_event", profileId: null, request: { event_id: replay.eventId, type: replay.type, status: replay.status } }),
    targetId: replay.eventId,
    state: replay.error === null ? "SUCCEEDED" : "FAILED",
    attempts: 1,
    recordId: replay.eventId,
    recordStatus: replay.status,
    ...(replay.error === null ? {} : { problem: { title: "Replay failed", detail: replay.error } }),
    createdAt: at,
    updatedAt: at,
    resolvedAt: at,
  })
}

/** An admin's balance snapshot taken now, on the audit trail once it is stored (the snapshot's id is its target). */
export async function recordSnapshotTaken(db: Db, staff: Staff, snapshot: { id: string; profiles: number }, at: Date): Promise<void> {
  await db.insert(consoleIntents).values({
    ...newRow({ staff, operation: "take_snapshot", profileId: null, request: { snapshot_id: snapshot.id, profiles: snapshot.profiles } }),
    targetId: snapshot.id,
    state: "SUCCEEDED",
    attempts: 1,
    recordId: snapshot.id,
    createdAt: at,
    updatedAt: at,
    resolvedAt: at,
  })
}

/**
 * A change of the team's notification settings on the audit trail (a team channel added or
 * removed, the large-order sizes), keyed by the channel's id or "large_order": SUCCEEDED in
 * the transaction that makes it, with before and after, or REFUSED with the problem it was
 * answered with. The caller hands in what may be kept: a channel's URL as scheme and host
 * only, whether it has a secret, never the secret.
 */
export async function recordNotifySettingsChange(
  db: Db,
  staff: Staff,
  change: { target: string; request: Record<string, unknown>; problem?: Problem | null },
  at: Date,
): Promise<void> {
  await db.insert(consoleIntents).values({
    ...newRow({ staff, operation: "update_notifications", profileId: null, request: change.request }),
    targetId: change.target,
    state: change.problem ? "REFUSED" : "SUCCEEDED",
    attempts: 0,
    ...(change.problem ? { problem: { ...change.problem } } : {}),
    createdAt: at,
    updatedAt: at,
    resolvedAt: at,
  })
}

/**
 * Records how an intent ended. Success always wins (a record exists); a failure or an
 * unknown outcome only replaces PENDING or UNKNOWN, never a known result.
 */
export function settleIntent(db: Db, id: string, outcome: IntentOutcome): Promise<void> {
  return inDbSpan("intent.settle", () => updateOutcome(db, id, outcome), { "console.intent_state": outcome.state })
}

async function updateOutcome(db: Db, id: string, outcome: IntentOutcome): Promise<void> {
  const now = new Date()
  if (outcome.state === "SUCCEEDED") {
    await db
      .update(consoleIntents)
      .set({
        state: "SUCCEEDED",
        recordId: outcome.recordId,
        recordStatus: outcome.recordStatus,
        problem: null,
        attempts: sql`${consoleIntents.attempts} + ${outcome.attempts}`,
        updatedAt: now,
        resolvedAt: now,
        ...(outcome.profileId ? { profileId: outcome.profileId } : {}),
      })
      .where(eq(consoleIntents.id, id))
    return
  }
  await db
    .update(consoleIntents)
    .set({
      state: outcome.state,
      problem: outcome.problem,
      attempts: sql`${consoleIntents.attempts} + ${outcome.attempts}`,
      updatedAt: now,
      resolvedAt: outcome.state === "FAILED" ? now : null,
    })
    .where(and(eq(consoleIntents.id, id), inArray(consoleIntents.state, ["PENDING", "UNKNOWN"])))
}

/** FAILED when the service certainly did not apply the request, UNKNOWN when it may have. */
export function failureOutcome(error: unknown): IntentOutcome {
  if (isUpstreamError(error)) {
    const { problem } = upstreamErrorToProblem(error)
    return { state: error.outcome === "rejected" ? "FAILED" : "UNKNOWN", problem: { ...problem }, attempts: error.attempts }
  }
  return { state: "UNKNOWN", problem: { ...consoleProblemBody("internal_error", "the console failed while sending") }, attempts: 1 }
}

/** Approved: the waiting intent becomes PENDING with the request to send, for the placement. */
export async function releaseApprovedIntent(tx: Db, id: string, request: Record<string, unknown>, now: Date): Promise<void> {
  await tx
    .update(consoleIntents)
    .set({ state: "PENDING", request, updatedAt: now })
    .where(and(eq(consoleIntents.id, id), eq(consoleIntents.state, "AWAITING_APPROVAL")))
}

/** Rejected, withdrawn, expired or past its limit price: waiting intents fail, nothing was sent. */
export async function failWaitingIntents(tx: Db, ids: string[], problem: Problem, now: Date): Promise<void> {
  await tx
    .update(consoleIntents)
    .set({ state: "FAILED", problem: { ...problem }, updatedAt: now, resolvedAt: now })
    .where(and(inArray(consoleIntents.id, ids), eq(consoleIntents.state, "AWAITING_APPROVAL")))
}

/** A placed record's final status, as the first to learn it saw it (its time is the event's time). */
export async function recordFinalStatus(db: Db, id: string, status: string, at: Date): Promise<void> {
  await db
    .update(consoleIntents)
    .set({ recordFinalStatus: status, recordFinalAt: at })
    .where(and(eq(consoleIntents.id, id), isNull(consoleIntents.recordFinalStatus)))
}

/**
 * An orchestration's final status from its event (lib/console/event-effects.ts), in the
 * reader's transaction: stored on the conversion's intent when it succeeded, has none yet,
 * and was not already final when placed (the page that placed it said so). Answers the intent
 * notified, null when none was (a replay notifies nobody twice).
 */
export async function recordOrchestrationFinalStatus(
  tx: Pick<Db, "update">,
  orchestrationId: string,
  status: string,
  at: Date,
): Promise<string | null> {
  const notified = await tx
    .update(consoleIntents)
    .set({ recordFinalStatus: status, recordFinalAt: at })
    .where(
      and(
        eq(consoleIntents.operation, "create_conversion"),
        eq(consoleIntents.recordId, orchestrationId),
        eq(consoleIntents.state, "SUCCEEDED"),
        isNull(consoleIntents.recordFinalStatus),
        or(isNull(consoleIntents.recordStatus), notInArray(consoleIntents.recordStatus, [...TERMINAL_STATUSES])),
      ),
    )
    .returning({ id: consoleIntents.id })
  return notified[0]?.id ?? null
}

const AMOUNT_FIELDS = ["base_amount", "quote_amount", "amount"] as const

/**
 * Two requests are the same submission when they say the same thing: amounts compare by
 * value ("0.01" is "0.010"), everything else by canonical JSON.
 */
export function sameRequest(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const rest = (r: Record<string, unknown>) => Object.fromEntries(Object.entries(r).filter(([k]) => !(AMOUNT_FIELDS as readonly string[]).includes(k)))
  for (const field of AMOUNT_FIELDS) {
    const x = a[field]
    const y = b[field]
    if (x === undefined && y === undefined) continue
    if (typeof x !== "string" || typeof y !== "string" || !sameAmount(x, y)) return false
  }
  return canonicalJson(rest(a)) === canonicalJson(rest(b))
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`
  if (value && typeof value === "object") {
    const record = value as Record<string, unknown>
    // Keys in code-unit order (sort's default for strings); a key whose value is undefined is left out.
    const keys = Object.keys(record)
      .filter((k) => record[k] !== undefined)
      .sort()
    // Stryker disable next-line StringLiteral: equivalent: JSON keys and values end where they end, so without the commas no two objects read alike either (the strings are only compared).
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(record[k])}`).join(",")}}`
  }
  return JSON.stringify(value)
}

/** What a look-up needs of a create's intent: how it stands and, once placed, the record's id. */
export interface CreateIntentView {
  state: IntentState
  recordId: string | null
  /** The conversion API that placed it (null: written before the console recorded it). */
  upstreamApi?: string | null
}

/**
 * The intent of the conversion create with this ref_id, if this console sent one. Until
 * the reconciler has run, an UNKNOWN create the service does not have is not "never
 * placed": a new submission started then would make a second conversion.
 */
export async function conversionCreateIntent(db: Db, refId: string): Promise<CreateIntentView | null> {
  const intent = await intentByRef(db, "create_conversion", refId)
  return intent ? { state: intent.state, recordId: intent.recordId, upstreamApi: intent.upstreamApi } : null
}

/** A create the sandbox's generated past says the console placed: written as it would stand once its record settled. */
export type HistoricCreate = typeof consoleIntents.$inferInsert & { refId: string; recordId: string; createdAt: Date }

/** Writes the creates of a generated sandbox week ("generate a past week"), in the caller's transaction. */
export async function insertHistoricCreates(tx: Db, rows: readonly HistoricCreate[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 500) await tx.insert(consoleIntents).values(rows.slice(i, i + 500))
}
