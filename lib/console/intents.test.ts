import { randomUUID } from "node:crypto"
import { eq } from "drizzle-orm"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Staff } from "@/lib/auth/roles"
import {
  failWaitingIntents,
  insertAdmittedIntent,
  intentByRef,
  intentIdByRef,
  openIntent,
  recordFinalStatus,
  recordPolicyChange,
  releaseApprovedIntent,
} from "@/lib/console/intents"
import type { Database } from "@/lib/db/client"
import { consoleIntents } from "@/lib/db/schema"
import { requestRejected } from "@/lib/problem"
import { createTestDatabase, testDrivers } from "@/test/db"

const trader: Staff = { email: "trader@example.com", role: "trader" }

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
        await recordPolicyChange(tx, admin, { before: { a: 1 }, after: { a: 2 } }, at)
        throw new Abort()
      }),
    ).rejects.toBeInstanceOf(Abort)
    expect(await db.select().from(consoleIntents).where(eq(consoleIntents.staffEmail, admin.email))).toEqual([])
    await db.transaction((tx) => recordPolicyChange(tx, admin, { before: { a: 1 }, after: { a: 2 } }, at))
    expect(await db.select().from(consoleIntents).where(eq(consoleIntents.staffEmail, admin.email))).toEqual([
      expect.objectContaining({ operation: "update_policy", targetId: "policy", state: "SUCCEEDED", request: { before: { a: 1 }, after: { a: 2 } }, resolvedAt: at }),
    ])
  })
})
