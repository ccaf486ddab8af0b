import { randomUUID } from "node:crypto"
import { eq } from "drizzle-orm"
import { beforeEach, describe, expect, it } from "vitest"
import type { Staff } from "@/lib/auth/roles"
import { approveRequest, rejectRequest, withdrawRequest } from "@/lib/console/approvals/decisions"
import { END_LAPSED_EVERY_MS } from "@/lib/console/approvals/expiry"
import { attributionByRef } from "@/lib/console/attribution"
import { listAudit } from "@/lib/console/audit"
import { getApproval, listApprovals } from "@/lib/console/approvals/reads"
import { withinLimit } from "@/lib/console/approvals/state"
import { policyView } from "@/lib/console/policy"
import { reconcileIntents } from "@/lib/console/reconciler"
import { submitConversion } from "@/lib/console/submission"
import { consoleIntents } from "@/lib/db/schema"
import { formatPrice } from "@/lib/format"
import { toDecimal } from "@/lib/money"
import { ApprovalsFixture, TEST_POLICY, checker, otherTrader, problemOf, support } from "@/test/approvals"
import type { ConsoleHarness } from "@/test/console"
import { testDrivers } from "@/test/db"
import { linesOf, logLines } from "@/test/log-lines"

describe.each(testDrivers())("approval decisions against the sandbox on %s", (driver) => {
  const f = new ApprovalsFixture(driver)
  const { heldQuotes, executionsWithRef, ask } = f
  let h: ConsoleHarness
  let profileId: string
  let me: Staff
  beforeEach(() => {
    ;({ h, profileId, me } = f)
  })

  it("the maker cannot approve (403); someone else approves and exactly one record is placed under the request's ref_id", async () => {
    const { submission, refId } = await ask("200.00")
    if (submission.kind !== "request") throw new Error("expected a request")
    const id = submission.request.id
    const own = await approveRequest(h, me, id, {}, { heldQuotes }).catch((e: unknown) => e)
    expect(problemOf(own)).toMatchObject({ status: 403, code: "not_allowed" })
    const bySupport = await approveRequest(h, support, id, {}, { heldQuotes }).catch((e: unknown) => e)
    expect(problemOf(bySupport)).toMatchObject({ status: 403, code: "role_required" })
    expect((await getApproval(h.db, id)).state).toBe("PENDING")
    const approved = await approveRequest(h, checker, id, { comment: "fine" }, { heldQuotes })
    expect(approved).toMatchObject({
      state: "APPROVED",
      placement: "PLACED",
      checker: { email: checker.email, role: "admin" },
      comment: "fine",
      record_status: "CREATED",
    })
    const records = await executionsWithRef(refId)
    expect(records.map((r) => r.id)).toEqual([approved.record_id])
    expect(records[0]).toMatchObject({ quote_amount: "200.00", side: "BUY", market: "BTCUSD", metadata: { desk: "fx" } })
    expect(withinLimit("BUY", approved.executed_price!, approved.limit_price!)).toBe(true)
    // The intent is the maker's, its request is what the approval sent.
    const [intent] = await h.db.select().from(consoleIntents).where(eq(consoleIntents.refId, refId))
    expect(intent).toMatchObject({ staffEmail: me.email, state: "SUCCEEDED", recordId: approved.record_id })
    const again = await approveRequest(h, otherTrader, id, {}, { heldQuotes }).catch((e: unknown) => e)
    expect(problemOf(again)).toMatchObject({ status: 409, code: "state_conflict" })
  })

  it("20 simultaneous approvals of one request over two console instances place exactly one record", async () => {
    const { submission, refId } = await ask("300.00")
    if (submission.kind !== "request") throw new Error("expected a request")
    const instances = [h.anotherInstance(), h.anotherInstance()]
    const approvers = [checker, otherTrader]
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        approveRequest(instances[i % 2]!, approvers[i % 2]!, submission.request.id, {}, { heldQuotes: () => instances[i % 2]!.upstream.listQuotes([]) }),
      ),
    )
    const won = results.filter((r) => r.status === "fulfilled")
    const lost = results.flatMap((r) => (r.status === "rejected" ? [problemOf(r.reason).status] : []))
    const lostCodes = new Set(results.flatMap((r) => (r.status === "rejected" ? [problemOf(r.reason).code] : [])))
    expect(won).toHaveLength(1)
    expect(lost).toEqual(Array.from({ length: 19 }, () => 409))
    expect([...lostCodes]).toEqual(["state_conflict"])
    expect(await executionsWithRef(refId)).toHaveLength(1)
    expect(await getApproval(h.db, submission.request.id)).toMatchObject({ state: "APPROVED", placement: "PLACED" })
  })

  it("an approval whose send meets an outage stays SENDING until the reconciler settles its intent: one record", async () => {
    const { submission, refId } = await ask("210.00")
    if (submission.kind !== "request") throw new Error("expected a request")
    await h.setFaults({ rules: [{ operation: "create_execution", fault: "error", rate: 1, status: 503 }] })
    try {
      const approved = await approveRequest(h, checker, submission.request.id, {}, { heldQuotes })
      expect(approved).toMatchObject({ state: "APPROVED", placement: "SENDING", record_id: null })
    } finally {
      await h.setFaults({ rules: [] })
    }
    await reconcileIntents(h, { olderThanMs: 0 })
    const settled = await getApproval(h.db, submission.request.id)
    expect(settled).toMatchObject({ state: "APPROVED", placement: "PLACED" })
    expect((await executionsWithRef(refId)).map((r) => r.id)).toEqual([settled.record_id])
  })

  it("an approval with no held quote to execute at is refused for now, and the request still waits", async () => {
    const { submission } = await ask("110.00")
    if (submission.kind !== "request") throw new Error("expected a request")
    const none = await approveRequest(h, checker, submission.request.id, {}, { heldQuotes: () => Promise.resolve([]) }).catch((e: unknown) => e)
    expect(problemOf(none)).toMatchObject({ status: 503, code: "quotes_unavailable" })
    expect(await getApproval(h.db, submission.request.id)).toMatchObject({ state: "PENDING", checker: null })
  })

  it("a reject needs a reason, ends REJECTED with it, and frees the day's usage", async () => {
    const { submission, refId } = await ask("400.00")
    if (submission.kind !== "request") throw new Error("expected a request")
    const id = submission.request.id
    const noReason = await rejectRequest(h.db, checker, id, { reason: "" }).catch((e: unknown) => e)
    expect(problemOf(noReason)).toMatchObject({ status: 400, code: "validation_failed", meta: { fields: { reason: expect.any(String) as string } } })
    const byMaker = await rejectRequest(h.db, me, id, { reason: "changed my mind" }).catch((e: unknown) => e)
    expect(problemOf(byMaker)).toMatchObject({ status: 403, code: "not_allowed" })
    const usage = async () => (await policyView(h.db, new Date())).usage_today.find((u) => u.staff_email === me.email)?.used_today
    expect(await usage()).toBe("400.00")
    const rejected = await rejectRequest(h.db, checker, id, { reason: "over the desk's appetite" })
    expect(rejected).toMatchObject({ state: "REJECTED", reason: "over the desk's appetite", checker: { email: checker.email }, placement: "NOT_SENT" })
    expect(rejected.problem?.title).toBe("Rejected")
    const [intent] = await h.db.select().from(consoleIntents).where(eq(consoleIntents.refId, refId))
    expect(intent?.problem).toMatchObject({ code: "request_rejected", status: 409 })
    expect(await usage()).toBeUndefined()
    expect(await executionsWithRef(refId)).toHaveLength(0)
    const approveAfter = await approveRequest(h, otherTrader, id, {}, { heldQuotes }).catch((e: unknown) => e)
    expect(problemOf(approveAfter)).toMatchObject({ status: 409, code: "state_conflict", meta: { state: "REJECTED" } })
  })

  it("only the maker can withdraw a pending request; their own pending ones are not counted as theirs to approve", async () => {
    const { submission } = await ask("120.00")
    if (submission.kind !== "request") throw new Error("expected a request")
    const forMaker = await listApprovals(h.db, { state: "PENDING", limit: 200 }, new Date(), me)
    const forChecker = await listApprovals(h.db, { state: "PENDING", limit: 200 }, new Date(), checker)
    expect(forChecker.pending_for_you - forMaker.pending_for_you).toBe(1)
    expect(forMaker.items.map((r) => r.id)).toContain(submission.request.id)
    const byOther = await withdrawRequest(h.db, checker, submission.request.id, {}).catch((e: unknown) => e)
    expect(problemOf(byOther)).toMatchObject({ status: 403, code: "not_allowed" })
    expect(await withdrawRequest(h.db, me, submission.request.id, {})).toMatchObject({ state: "WITHDRAWN", placement: "NOT_SENT" })
  })

  it("a request left past its time is EXPIRED and can no longer be approved", async () => {
    const { submission } = await ask("130.00")
    if (submission.kind !== "request") throw new Error("expected a request")
    const expiresAt = new Date(submission.request.expires_at)
    expect(expiresAt.getTime() - new Date(submission.request.created_at).getTime()).toBe(TEST_POLICY.request_ttl_minutes * 60_000)
    // A millisecond before its time it still waits; at its time it has expired.
    const justBefore = await getApproval(h.db, submission.request.id, new Date(expiresAt.getTime() - 1))
    expect(justBefore).toMatchObject({ state: "PENDING", decided_at: null })
    const atTime = await getApproval(h.db, submission.request.id, expiresAt)
    expect(atTime).toMatchObject({ state: "EXPIRED", decided_at: expiresAt.toISOString(), placement: "NOT_SENT" })
    const [intent] = await h.db.select().from(consoleIntents).where(eq(consoleIntents.id, submission.request.id))
    expect(intent).toMatchObject({ state: "FAILED", problem: { code: "request_expired" } })
    const after = () => new Date(expiresAt.getTime() + 1)
    const late = await approveRequest(h, checker, submission.request.id, {}, { heldQuotes, now: after }).catch((e: unknown) => e)
    expect(problemOf(late)).toMatchObject({ status: 409, code: "state_conflict", meta: { state: "EXPIRED" } })
    const listed = await listApprovals(h.db, { limit: 200 }, after(), checker)
    expect(listed.items.find((r) => r.id === submission.request.id)).toMatchObject({ state: "EXPIRED", placement: "NOT_SENT" })
  })

  it("the lists' sweep of lapsed requests runs at most every few seconds per instance, but a decision checks the request it acts on: an expired one is never approved", async () => {
    const { submission } = await ask("135.00")
    if (submission.kind !== "request") throw new Error("expected a request")
    const expiresAt = new Date(submission.request.expires_at).getTime()
    const at = (ms: number) => () => new Date(expiresAt + ms)
    const stateIn = async (now: Date) => (await listApprovals(h.db, { limit: 200 }, now, checker)).items.find((r) => r.id === submission.request.id)?.state
    expect(await stateIn(new Date(expiresAt - 1))).toBe("PENDING")
    // A millisecond past its time: the list was swept a moment ago, so it may still say PENDING...
    expect(await stateIn(new Date(expiresAt + 1))).toBe("PENDING")
    // ...but approving it is refused as expired, and nothing is placed: told as the request now stands, ended EXPIRED by this approval's own check.
    const late = await approveRequest(h, checker, submission.request.id, {}, { heldQuotes, now: at(2) }).catch((e: unknown) => e)
    expect(problemOf(late)).toMatchObject({ status: 409, code: "state_conflict", meta: { state: "EXPIRED" }, detail: "This request is EXPIRED; only a PENDING request can be changed." })
    const [intent] = await h.db.select().from(consoleIntents).where(eq(consoleIntents.id, submission.request.id))
    expect(intent).toMatchObject({ state: "FAILED", recordId: null, problem: { code: "request_expired" } })
    expect(await stateIn(new Date(expiresAt + END_LAPSED_EVERY_MS + 10))).toBe("EXPIRED")
  })

  it("an approval after the market moved past the limit price ends PRICE_MOVED and places nothing", async () => {
    const { submission, refId } = await ask("140.00")
    if (submission.kind !== "request") throw new Error("expected a request")
    await h.moveMarket("BTC", "5")
    // Quotes priced before the move stay held until their second has passed.
    const limit = toDecimal(submission.request.limit_price!)
    for (let i = 0; i < 40; i++) {
      const now = (await h.upstream.listQuotes(["BTCUSD"])).find((q) => q.side === "BUY")
      if (now && toDecimal(now.price).gt(limit)) break
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    const { result: moved, lines } = await logLines(() => approveRequest(h, checker, submission.request.id, {}, { heldQuotes: () => h.upstream.listQuotes(["BTCUSD"]) }))
    expect(moved).toMatchObject({ state: "PRICE_MOVED", placement: "NOT_SENT" })
    // Logged as approved with the price moved; no placement was tried, so none failed.
    expect(linesOf(lines, "approval.approved")).toEqual([expect.objectContaining({ intentId: submission.request.id, priceMoved: true })])
    expect(linesOf(lines, "approval.place_failed")).toEqual([])
    expect(withinLimit("BUY", moved.executed_price!, moved.limit_price!)).toBe(false)
    expect(moved.problem?.detail).toContain(formatPrice(moved.limit_price))
    const [intent] = await h.db.select().from(consoleIntents).where(eq(consoleIntents.refId, refId))
    expect(intent?.problem).toMatchObject({ code: "price_moved", title: "Price Moved" })
    expect(await executionsWithRef(refId)).toHaveLength(0)
    await h.moveMarket("BTC", "-4.7619")
  })

  it("a conversion over the threshold waits, and once approved is created and settles", async () => {
    const refId = randomUUID()
    const body = { profile_id: profileId, amount: "500.00", source_asset: "USD" as const, target_asset: "PYUSD" as const, ref_id: refId }
    const submission = await submitConversion(h, me, body)
    if (submission.kind !== "request") throw new Error("expected a request")
    expect(submission.request).toMatchObject({ kind: "conversion", size: { amount: "500.00", currency: "USD" }, limit_price: null })
    expect((await h.upstream.listConversions({ ref_id: refId })).items).toHaveLength(0)
    const approved = await approveRequest(h, checker, submission.request.id, {}, { heldQuotes })
    expect(approved).toMatchObject({ state: "APPROVED", placement: "PLACED", record_status: "CREATED", executed_price: null, approvals: { given: [{ email: checker.email, credential_id: null }] } })
    await h.sandbox.settleDue()
    expect((await h.upstream.getConversion(approved.record_id!)).status).toBe("SETTLED")
  })
  it("exports and the trail say who placed each record and who approved it", async () => {
    const small = await ask("20.00")
    const big = await ask("200.00")
    if (small.submission.kind !== "placed" || big.submission.kind !== "request") throw new Error("expected one placed, one request")
    await approveRequest(h, checker, big.submission.request.id, {}, { heldQuotes })
    const who = await attributionByRef(h.db, "create_execution", [small.refId, big.refId, "not-from-this-console"])
    expect(Object.fromEntries(who)).toEqual({
      [small.refId]: { placed_by: me.email, approved_by: null },
      [big.refId]: { placed_by: me.email, approved_by: checker.email },
    })
    const trail = await listAudit(h.db, { staff: me.email, limit: 10 })
    const row = trail.items.find((e) => e.ref_id === big.refId)
    expect(row).toMatchObject({ approver: checker.email, approval_state: "APPROVED", market: "BTCUSD", side: "BUY", size: { amount: "200.00", currency: "USD" } })
  })
})
