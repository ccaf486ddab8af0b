import { randomUUID } from "node:crypto"
import { eq } from "drizzle-orm"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Staff } from "@/lib/auth/roles"
import {
  conversionCreateIntent,
  failWaitingIntents,
  failureOutcome,
  type HistoricCreate,
  insertAdmittedIntent,
  insertHistoricCreates,
  intentByRef,
  intentIdByRef,
  openIntent,
  recordEventReplay,
  recordFinalStatus,
  recordNotifySettingsChange,
  recordOrchestrationFinalStatus,
  recordPolicyChange,
  recordRefusal,
  recordSnapshotTaken,
  releaseApprovedIntent,
  sameRequest,
  settleIntent,
} from "@/lib/console/intents"
import type { Database } from "@/lib/db/client"
import { consoleIntents } from "@/lib/db/schema"
import { requestRejected } from "@/lib/problem"
import { UpstreamProblemError, UpstreamTimeoutError } from "@/lib/upstream"
import { createTestDatabase, testDrivers } from "@/test/db"
import { spansInMemory } from "@/test/spans"

const trader: Staff = { email: "trader@example.com", role: "trader" }

// The spans an operator's collector receives (docs/production.md, "Traces"), kept in memory here.
const exporter = spansInMemory()

/**
 * Whether a ref_id sent again is the same submission (the first record back) or another
 * one (a 409, nothing sent): what operations and submission decide with sameRequest.
 */
describe("sameRequest: a ref_id sent again", () => {
  const first = { profile_id: "p1", quote_id: "q1", quote_amount: "10.00", ref_id: "r1", metadata: { desk: "fx", note: "n" } }

  it("is the same submission when it says the same thing: amounts by value, fields in any order", () => {
    expect(sameRequest(first, { ...first })).toBe(true)
    expect(sameRequest(first, { ...first, quote_amount: "10" })).toBe(true)
    expect(sameRequest(first, { metadata: { note: "n", desk: "fx" }, ref_id: "r1", quote_amount: "10.000", quote_id: "q1", profile_id: "p1" })).toBe(true)
    // A field left out and a field given as undefined say the same thing.
    expect(sameRequest({ ...first, account_id: undefined }, first)).toBe(true)
    expect(sameRequest({ amount: "5", list: [{ a: 1, b: null }] }, { list: [{ b: null, a: 1 }], amount: "5.00" })).toBe(true)
  })

  it("is another submission when the amount differs, even by a cent", () => {
    expect(sameRequest(first, { ...first, quote_amount: "10.01" })).toBe(false)
    expect(sameRequest({ amount: "1.00" }, { amount: "1.001" })).toBe(false)
  })

  it("is another submission when the first gave base_amount and the retry quote_amount (or the reverse)", () => {
    const base = { quote_id: "q1", base_amount: "10.00" }
    const quote = { quote_id: "q1", quote_amount: "10.00" }
    expect(sameRequest(base, quote)).toBe(false)
    expect(sameRequest(quote, base)).toBe(false)
    expect(sameRequest({ amount: "10" }, {})).toBe(false)
    expect(sameRequest({}, { amount: "10" })).toBe(false)
    // An amount that is not text is never the same as one that is.
    expect(sameRequest({ amount: "10" }, { amount: 10 })).toBe(false)
    expect(sameRequest({ amount: 10 }, { amount: "10" })).toBe(false)
  })

  it("is another submission when anything else differs: quote, side, profile, metadata", () => {
    expect(sameRequest(first, { ...first, quote_id: "q2" })).toBe(false)
    expect(sameRequest(first, { ...first, profile_id: "p2" })).toBe(false)
    expect(sameRequest({ ...first, side: "BUY" }, { ...first, side: "SELL" })).toBe(false)
    expect(sameRequest(first, { ...first, metadata: { desk: "fx" } })).toBe(false)
    expect(sameRequest(first, { ...first, metadata: { desk: "fx", note: "N" } })).toBe(false)
    expect(sameRequest(first, { ...first, extra: "x" })).toBe(false)
    expect(sameRequest({ ...first, metadata: null }, first)).toBe(false)
    expect(sameRequest({ ...first, metadata: null }, { ...first, metadata: null })).toBe(true)
  })

  it("tells lists from objects and lists apart element by element", () => {
    expect(sameRequest({ ids: [1, 12] }, { ids: [11, 2] })).toBe(false)
    expect(sameRequest({ ids: ["a"] }, { ids: { 0: "a" } })).toBe(false)
    expect(sameRequest({ ids: [] }, { ids: {} })).toBe(false)
    expect(sameRequest({ ids: ["a", "b"] }, { ids: ["b", "a"] })).toBe(false)
    expect(sameRequest({ n: 1 }, { n: "1" })).toBe(false)
  })
})

describe("failureOutcome", () => {
  it("FAILED when the service refused the request, UNKNOWN when it may have applied it, with the attempts made", () => {
    const refused = new UpstreamProblemError({ type: "about:blank", title: "Bad Request", status: 400, detail: "bad" })
    refused.attempts = 2
    expect(failureOutcome(refused)).toMatchObject({ state: "FAILED", attempts: 2, problem: { status: 400, detail: "bad" } })
    const timeout = new UpstreamTimeoutError(400, { outcome: "unknown", mutating: true })
    timeout.attempts = 3
    expect(failureOutcome(timeout)).toMatchObject({ state: "UNKNOWN", attempts: 3 })
  })

  it("the console's own failure is UNKNOWN: the request may have left", () => {
    expect(failureOutcome(new Error("boom"))).toEqual({
      state: "UNKNOWN",
      attempts: 1,
      problem: { type: "about:blank", title: "Internal Server Error", status: 500, code: "internal_error", detail: "the console failed while sending" },
    })
  })
})

describe.each(testDrivers())("the intents module on %s", (driver) => {
  let database: Database
  beforeAll(async () => {
    database = await createTestDatabase(driver)
  })
  afterAll(async () => {
    await database?.close()
  })

  const admitted = (refId: string, state: "PENDING" | "AWAITING_APPROVAL" = "PENDING") => ({
    staff: trader,
    operation: "create_execution" as const,
    profileId: "p1",
    refId,
    request: { profile_id: "p1", quote_id: "q", quote_amount: "10.00", ref_id: refId },
    state,
    size: { amount: "10.00", currency: "USD" },
    at: new Date("2026-03-01T12:00:00Z"),
  })

  class Abort extends Error {}

  it("an admitted intent is written in the caller's transaction: rolled back with it, kept when it commits", async () => {
    const { db } = database
    const refId = randomUUID()
    await expect(
      db.transaction(async (tx) => {
        expect(await insertAdmittedIntent(tx, admitted(refId))).toMatchObject({ refId, state: "PENDING", sizeAmount: "10.00", sizeCurrency: "USD" })
        throw new Abort()
      }),
    ).rejects.toBeInstanceOf(Abort)
    expect(await intentByRef(db, "create_execution", refId)).toBeNull()

    const written = await db.transaction((tx) => insertAdmittedIntent(tx, admitted(refId, "AWAITING_APPROVAL")))
    expect(await intentByRef(db, "create_execution", refId)).toEqual(written)
    expect(written).toMatchObject({ state: "AWAITING_APPROVAL", createdAt: new Date("2026-03-01T12:00:00Z"), staffEmail: trader.email })
  })

  it("a ref_id that has an intent already writes nothing and answers null; the look-up inside a statement finds it", async () => {
    const { db } = database
    const refId = randomUUID()
    const first = await db.transaction((tx) => insertAdmittedIntent(tx, admitted(refId)))
    expect(await db.transaction((tx) => insertAdmittedIntent(tx, { ...admitted(refId), request: { other: true } }))).toBeNull()
    expect(await db.select().from(consoleIntents).where(eq(consoleIntents.refId, refId))).toEqual([first])
    const [read] = await db.select({ id: intentIdByRef(db, "create_execution", refId), none: intentIdByRef(db, "create_conversion", refId) }).from(consoleIntents).limit(1)
    expect(read).toEqual({ id: first?.id, none: null })
  })

  it("openIntent writes a create once and hands a retry the same row", async () => {
    const { db } = database
    const refId = randomUUID()
    const input = { staff: trader, operation: "create_conversion" as const, profileId: "p1", refId, request: { ref_id: refId }, upstreamApi: "orchestrations" as const }
    const opened = await openIntent(db, input)
    expect(opened).toMatchObject({ created: true, intent: { state: "PENDING", upstreamApi: "orchestrations" } })
    expect(await openIntent(db, input)).toEqual({ intent: opened.intent, created: false })
    // A cancel is keyed by its record, and written every time it is asked for.
    const cancel = { staff: trader, operation: "cancel_conversion" as const, profileId: null, targetId: "c-1", request: { id: "c-1" } }
    expect((await openIntent(db, cancel)).intent.id).not.toBe((await openIntent(db, cancel)).intent.id)
  })

  it("approval moves touch only waiting intents", async () => {
    const { db } = database
    const [waiting, rejected, sent] = [randomUUID(), randomUUID(), randomUUID()]
    const rows = await db.transaction(async (tx) => [
      await insertAdmittedIntent(tx, admitted(waiting, "AWAITING_APPROVAL")),
      await insertAdmittedIntent(tx, admitted(rejected, "AWAITING_APPROVAL")),
      await insertAdmittedIntent(tx, admitted(sent)),
    ])
    const [w, r, s] = rows.map((row) => row!.id) as [string, string, string]
    const now = new Date("2026-03-01T13:00:00Z")
    await db.transaction(async (tx) => {
      await releaseApprovedIntent(tx, w, { approved: true }, now)
      await failWaitingIntents(tx, [r, s], requestRejected("admin@example.com", "too large"), now)
    })
    expect(await intentByRef(db, "create_execution", waiting)).toMatchObject({ state: "PENDING", request: { approved: true }, updatedAt: now, resolvedAt: null })
    expect(await intentByRef(db, "create_execution", rejected)).toMatchObject({
      state: "FAILED",
      resolvedAt: now,
      problem: { code: "request_rejected", title: "Rejected", status: 409, detail: "rejected by admin@example.com: too large" },
    })
    // Not waiting: left as it was.
    expect(await intentByRef(db, "create_execution", sent)).toMatchObject({ state: "PENDING", problem: null })
    // No ids: nothing moves.
    await failWaitingIntents(db, [], requestRejected("admin@example.com", "none"), now)
    expect(await intentByRef(db, "create_execution", waiting)).toMatchObject({ state: "PENDING" })
    // Released once: a second approval's move finds nothing to move.
    await releaseApprovedIntent(db, w, { approved: "twice" }, now)
    expect((await intentByRef(db, "create_execution", waiting))?.request).toEqual({ approved: true })
  })

  it("a record's final status is written by the first to learn it", async () => {
    const { db } = database
    const refId = randomUUID()
    const intent = await db.transaction((tx) => insertAdmittedIntent(tx, admitted(refId)))
    const first = new Date("2026-03-01T14:00:00Z")
    await recordFinalStatus(db, intent!.id, "SETTLED", first)
    await recordFinalStatus(db, intent!.id, "CANCELLED", new Date("2026-03-01T14:00:05Z"))
    expect(await intentByRef(db, "create_execution", refId)).toMatchObject({ recordFinalStatus: "SETTLED", recordFinalAt: first })
  })

  it("a policy change goes on the trail in the caller's transaction, SUCCEEDED at once", async () => {
    const { db } = database
    const at = new Date("2026-03-01T15:00:00Z")
    const admin: Staff = { email: `admin-${randomUUID().slice(0, 8)}@example.com`, role: "admin" }
    await expect(
      db.transaction(async (tx) => {
        await recordPolicyChange(tx, admin, { before: { a: 1 }, after: { a: 2 }, version: 3 }, at)
        throw new Abort()
      }),
    ).rejects.toBeInstanceOf(Abort)
    expect(await db.select().from(consoleIntents).where(eq(consoleIntents.staffEmail, admin.email))).toEqual([])
    await db.transaction((tx) => recordPolicyChange(tx, admin, { before: { a: 1 }, after: { a: 2 }, version: 3 }, at))
    expect(await db.select().from(consoleIntents).where(eq(consoleIntents.staffEmail, admin.email))).toEqual([
      expect.objectContaining({ operation: "update_policy", targetId: "policy", state: "SUCCEEDED", request: { before: { a: 1 }, after: { a: 2 }, version: 3 }, resolvedAt: at }),
    ])
  })

  it("settling: success always wins, a failure only replaces PENDING or UNKNOWN, attempts add up", async () => {
    const { db } = database
    const refId = randomUUID()
    const { intent } = await openIntent(db, { staff: trader, operation: "create_conversion", profileId: null, refId, request: { ref_id: refId } })
    expect(intent.attempts).toBe(0)
    const problem = { title: "Service Unavailable" }
    await settleIntent(db, intent.id, { state: "UNKNOWN", problem, attempts: 3 })
    let row = await intentByRef(db, "create_conversion", refId)
    expect(row).toMatchObject({ state: "UNKNOWN", problem, attempts: 3, resolvedAt: null })
    await settleIntent(db, intent.id, { state: "SUCCEEDED", recordId: "c-1", recordStatus: "SETTLED", attempts: 1, profileId: "p9" })
    row = await intentByRef(db, "create_conversion", refId)
    expect(row).toMatchObject({ state: "SUCCEEDED", recordId: "c-1", recordStatus: "SETTLED", problem: null, attempts: 4, profileId: "p9" })
    expect(row?.resolvedAt).toBeInstanceOf(Date)
    expect(row?.updatedAt).toEqual(row?.resolvedAt)
    // A failure learned later never replaces a placed record.
    await settleIntent(db, intent.id, { state: "FAILED", problem, attempts: 1 })
    expect(await intentByRef(db, "create_conversion", refId)).toMatchObject({ state: "SUCCEEDED", recordId: "c-1", attempts: 4 })

    const other = randomUUID()
    const opened = await openIntent(db, { staff: trader, operation: "create_conversion", profileId: "p1", refId: other, request: { ref_id: other } })
    await settleIntent(db, opened.intent.id, { state: "SUCCEEDED", recordId: "c-2", recordStatus: "PENDING", attempts: 1 })
    expect(await intentByRef(db, "create_conversion", other)).toMatchObject({ profileId: "p1", recordId: "c-2" })

    const failed = randomUUID()
    const third = await openIntent(db, { staff: trader, operation: "create_conversion", profileId: null, refId: failed, request: { ref_id: failed } })
    await settleIntent(db, third.intent.id, { state: "UNKNOWN", problem: { title: "first" }, attempts: 1 })
    await settleIntent(db, third.intent.id, { state: "FAILED", problem, attempts: 1 })
    row = await intentByRef(db, "create_conversion", failed)
    expect(row).toMatchObject({ state: "FAILED", problem, attempts: 2 })
    expect(row?.resolvedAt).toBeInstanceOf(Date)
    // Known to have failed: an UNKNOWN learned afterwards changes nothing.
    await settleIntent(db, third.intent.id, { state: "UNKNOWN", problem: { title: "later" }, attempts: 1 })
    expect(await intentByRef(db, "create_conversion", failed)).toMatchObject({ state: "FAILED", problem, attempts: 2 })
  })

  it("an execution's admitted intent keeps the market and side it was priced at", async () => {
    const { db } = database
    const refId = randomUUID()
    const intent = await db.transaction((tx) => insertAdmittedIntent(tx, { ...admitted(refId), quote: { market: "ETHUSD", side: "SELL" } }))
    expect(intent).toMatchObject({ market: "ETHUSD", side: "SELL", sizeAmount: "10.00", sizeCurrency: "USD" })
  })

  it("a refusal is on the trail REFUSED with its problem, market, side and size, holds no ref_id, and is written every time", async () => {
    const { db } = database
    const refId = randomUUID()
    const at = new Date("2026-03-02T09:00:00Z")
    const problem = { type: "about:blank", status: 422, code: "limit_exceeded", title: "Over your limit", detail: "This order of 60,000.00 USD is over your limit per order." }
    const base = { staff: trader, operation: "create_execution" as const, profileId: "p1", request: { ref_id: refId, quote_amount: "60000.00" }, problem, at }
    const first = await recordRefusal(db, { ...base, market: "BTCUSD", side: "BUY", size: { amount: "60000.00", currency: "USD" } })
    expect(first).toMatchObject({ state: "REFUSED", attempts: 0, refId: null, problem, market: "BTCUSD", side: "BUY", sizeAmount: "60000.00", sizeCurrency: "USD", createdAt: at, resolvedAt: at })
    const bare = await recordRefusal(db, base)
    expect(bare).toMatchObject({ state: "REFUSED", market: null, side: null, sizeAmount: null, sizeCurrency: null })
    expect(bare.id).not.toBe(first.id)
    // The ref_id stays free: the corrected order is written under it.
    expect((await openIntent(db, { staff: trader, operation: "create_execution", profileId: "p1", refId, request: { ref_id: refId } })).created).toBe(true)
  })

  it("an admin's event replay is on the trail: SUCCEEDED with the event's status, or FAILED with why", async () => {
    const { db } = database
    const admin: Staff = { email: `admin-${randomUUID().slice(0, 8)}@example.com`, role: "admin" }
    const at = new Date("2026-03-02T10:00:00Z")
    await recordEventReplay(db, admin, { eventId: "ev-1", type: "transfer.wire_deposit.completed", status: "processed", error: null }, at)
    await recordEventReplay(db, admin, { eventId: "ev-2", type: "orchestration.completed", status: "parked", error: "no such intent" }, at)
    const rows = await db.select().from(consoleIntents).where(eq(consoleIntents.staffEmail, admin.email))
    const byEvent = new Map(rows.map((r) => [r.targetId, r]))
    expect(byEvent.get("ev-1")).toMatchObject({
      operation: "replay_event",
      state: "SUCCEEDED",
      attempts: 1,
      recordId: "ev-1",
      recordStatus: "processed",
      problem: null,
      request: { event_id: "ev-1", type: "transfer.wire_deposit.completed", status: "processed" },
      resolvedAt: at,
    })
    expect(byEvent.get("ev-2")).toMatchObject({ state: "FAILED", recordStatus: "parked", problem: { title: "Replay failed", detail: "no such intent" } })
  })

  it("a snapshot taken now and a notifications change are on the trail; a refused change keeps its problem", async () => {
    const { db } = database
    const admin: Staff = { email: `admin-${randomUUID().slice(0, 8)}@example.com`, role: "admin" }
    const at = new Date("2026-03-02T11:00:00Z")
    await recordSnapshotTaken(db, admin, { id: "snap-1", profiles: 3 }, at)
    const changed = { change: "large_order", before: { large_order: {} }, after: { large_order: { USD: "90.00" } } }
    await recordNotifySettingsChange(db, admin, { target: "large_order", request: changed }, at)
    const problem = { type: "about:blank", status: 400, code: "validation_failed", title: "Invalid request", detail: "large_order.USD must be more than 0" }
    await recordNotifySettingsChange(db, admin, { target: "large_order", request: { change: "large_order", sent: { large_order: { USD: "-5" } } }, problem }, at)
    const rows = await db.select().from(consoleIntents).where(eq(consoleIntents.staffEmail, admin.email))
    expect(rows.find((r) => r.operation === "take_snapshot")).toMatchObject({
      targetId: "snap-1",
      recordId: "snap-1",
      state: "SUCCEEDED",
      attempts: 1,
      request: { snapshot_id: "snap-1", profiles: 3 },
      resolvedAt: at,
    })
    const notifications = rows.filter((r) => r.operation === "update_notifications")
    expect(notifications.find((r) => r.state === "SUCCEEDED")).toMatchObject({ targetId: "large_order", attempts: 0, request: changed, problem: null, resolvedAt: at })
    expect(notifications.find((r) => r.state === "REFUSED")).toMatchObject({ targetId: "large_order", problem, request: { sent: { large_order: { USD: "-5" } } } })
  })

  it("an orchestration's final status is stored once on the intent that placed it, never on one final when placed", async () => {
    const { db } = database
    const placed = async (recordStatus: string) => {
      const refId = randomUUID()
      const { intent } = await openIntent(db, { staff: trader, operation: "create_conversion", profileId: "p1", refId, request: { ref_id: refId }, upstreamApi: "orchestrations" })
      const recordId = `o-${refId}`
      await settleIntent(db, intent.id, { state: "SUCCEEDED", recordId, recordStatus, attempts: 1 })
      return { id: intent.id, refId, recordId }
    }
    const processing = await placed("PROCESSING")
    const at = new Date("2026-03-02T12:00:00Z")
    expect(await recordOrchestrationFinalStatus(db, processing.recordId, "COMPLETED", at)).toBe(processing.id)
    expect(await intentByRef(db, "create_conversion", processing.refId)).toMatchObject({ recordFinalStatus: "COMPLETED", recordFinalAt: at })
    // Told once: a replayed event notifies nobody again and changes nothing.
    expect(await recordOrchestrationFinalStatus(db, processing.recordId, "FAILED", new Date("2026-03-02T12:05:00Z"))).toBeNull()
    expect(await intentByRef(db, "create_conversion", processing.refId)).toMatchObject({ recordFinalStatus: "COMPLETED", recordFinalAt: at })
    // Final already when the page placed it (it said so then): nothing to tell.
    for (const status of ["COMPLETED", "FAILED", "REJECTED"]) {
      const final = await placed(status)
      expect(await recordOrchestrationFinalStatus(db, final.recordId, status, at)).toBeNull()
      expect(await intentByRef(db, "create_conversion", final.refId)).toMatchObject({ recordFinalStatus: null })
    }
    expect(await recordOrchestrationFinalStatus(db, "o-unknown", "COMPLETED", at)).toBeNull()
  })

  // 1,000 rows end exactly on a batch: no empty last batch is sent (the driver refuses one).
  it.each([1000, 1201])("a generated week's creates are all written, in batches (%i rows)", async (count) => {
    const { db } = database
    const admin: Staff = { email: `history-${randomUUID().slice(0, 8)}@example.com`, role: "trader" }
    const createdAt = new Date("2026-02-20T10:00:00Z")
    const rows: HistoricCreate[] = Array.from({ length: count }, (_, i) => {
      const refId = randomUUID()
      return { staffEmail: admin.email, staffRole: admin.role, operation: "create_execution", profileId: "p1", request: { ref_id: refId, n: i }, refId, recordId: `e-${i}`, state: "SUCCEEDED", createdAt }
    })
    await db.transaction((tx) => insertHistoricCreates(tx, rows))
    const written = await db.select({ recordId: consoleIntents.recordId }).from(consoleIntents).where(eq(consoleIntents.staffEmail, admin.email))
    expect(written.map((r) => r.recordId).sort()).toEqual(rows.map((r) => r.recordId).sort())
  })

  it("writing an intent, a refusal and an outcome are each a span named for what they wrote", async () => {
    const { db } = database
    exporter.reset()
    const refId = randomUUID()
    const { intent } = await openIntent(db, { staff: trader, operation: "create_conversion", profileId: "p1", refId, request: { ref_id: refId } })
    const problem = { type: "about:blank", status: 422, code: "quote_not_current", title: "Quote not current", detail: "d" }
    await recordRefusal(db, { staff: trader, operation: "create_execution", profileId: "p1", request: {}, problem, at: new Date() })
    await settleIntent(db, intent.id, { state: "UNKNOWN", problem, attempts: 1 })
    const spans = exporter.getFinishedSpans().map((span) => [span.name, span.attributes["console.operation"] ?? span.attributes["console.intent_state"]])
    expect(spans).toEqual([
      ["console.intent.open", "create_conversion"],
      ["console.refusal.write", "create_execution"],
      ["console.intent.settle", "UNKNOWN"],
    ])
  })

  it("a conversion's create intent is found by its ref_id, with how it stands and the API that placed it", async () => {
    const { db } = database
    const refId = randomUUID()
    expect(await conversionCreateIntent(db, refId)).toBeNull()
    const { intent } = await openIntent(db, { staff: trader, operation: "create_conversion", profileId: "p1", refId, request: { ref_id: refId }, upstreamApi: "orchestrations" })
    expect(await conversionCreateIntent(db, refId)).toEqual({ state: "PENDING", recordId: null, upstreamApi: "orchestrations" })
    await settleIntent(db, intent.id, { state: "SUCCEEDED", recordId: "o-1", recordStatus: "COMPLETED", attempts: 1 })
    expect(await conversionCreateIntent(db, refId)).toEqual({ state: "SUCCEEDED", recordId: "o-1", upstreamApi: "orchestrations" })
    // An execution's intent is not a conversion's.
    const execution = randomUUID()
    await openIntent(db, { staff: trader, operation: "create_execution", profileId: "p1", refId: execution, request: {} })
    expect(await conversionCreateIntent(db, execution)).toBeNull()
  })
})
