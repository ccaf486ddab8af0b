import { randomUUID } from "node:crypto"
import { eq } from "drizzle-orm"
import { beforeEach, describe, expect, it } from "vitest"
import { ensureStaffBootstrap } from "@/lib/auth/staff"
import { DEMO_USERS } from "@/lib/auth/demo-users"
import type { Role, Staff } from "@/lib/auth/roles"
import { recordAuthEvent } from "@/lib/auth/sessions"
import { staffRef } from "@/lib/auth/staff-ref"
import { approveRequest, rejectRequest, withdrawRequest } from "@/lib/console/approvals/decisions"
import { endLapsed } from "@/lib/console/approvals/expiry"
import { getApproval, listApprovals } from "@/lib/console/approvals/reads"
import { requestHref } from "@/lib/console/notify/approvals"
import { readInbox } from "@/lib/console/notify/inbox"
import { readPolicy, savePolicy } from "@/lib/console/policy"
import { rememberServed } from "@/lib/console/served-quotes"
import { submitConversion, submitQuoteExecution } from "@/lib/console/submission"
import { consoleApprovals, consoleIntents } from "@/lib/db/schema"
import type { Policy } from "@/lib/schemas/approvals"
import { ApprovalsFixture, checker, otherTrader, problemOf, signsInBySso, support } from "@/test/approvals"
import type { ConsoleHarness } from "@/test/console"
import { testDrivers } from "@/test/db"
import { linesOf, logLines } from "@/test/log-lines"

/** Approval requests as their maker and checkers meet them: the limit shown, each decision, the list, who is told what. */
describe.each(testDrivers())("approval requests against the sandbox on %s", (driver) => {
  const f = new ApprovalsFixture(driver)
  const { heldQuotes, heldQuote, executionsWithRef } = f
  let h: ConsoleHarness
  let profileId: string
  let me: Staff
  beforeEach(() => {
    ;({ h, profileId, me } = f)
  })

  const conversion = (amount: string) => ({ profile_id: profileId, amount, source_asset: "USD" as const, target_asset: "PYUSD" as const, ref_id: randomUUID() })

  async function request(amount: string, who: Staff = me, now?: Date): Promise<string> {
    const asked = await submitConversion(h, who, conversion(amount), now ? { now: () => now } : {})
    if (asked.kind !== "request") throw new Error("expected a request")
    return asked.request.id
  }

  async function intentOf(id: string) {
    const [intent] = await h.db.select().from(consoleIntents).where(eq(consoleIntents.id, id))
    return intent
  }

  it("the limit price keeps the reviewed price's decimals: never rounded, for or against the maker", async () => {
    const held = await heldQuote("BUY", "BTCUSD")
    // Quotes the console served at prices of 8 decimals and of none (the reviewed price is the served one).
    for (const [price, limit] of [
      ["0.00012345", "0.000124067250"],
      ["64000", "64320.000000"],
    ] as const) {
      const served = { ...held, id: randomUUID(), price }
      await rememberServed(h.db, me, [served])
      const body = { quote_id: served.id, quote_amount: "150.00", ref_id: randomUUID(), reviewed_quote: { market: "BTCUSD", side: "BUY" as const, price } }
      const asked = await submitQuoteExecution(h, me, profileId, body, { heldQuotes })
      if (asked.kind !== "request") throw new Error("expected a request")
      expect(asked.request).toMatchObject({ reviewed_price: price, limit_price: limit, ref_id: body.ref_id, profile_id: profileId })
    }
  })

  it("a waiting execution is in the inbox of each person who may approve it, as what it is, how much and whose; not in its maker's", async () => {
    // Who is told is read from the staff table: the sandbox's demo users as the console starts with them.
    await ensureStaffBootstrap(h.db)
    const { submission } = await f.ask("230.00")
    if (submission.kind !== "request") throw new Error("expected a request")
    const id = submission.request.id
    const waiting = async (who: Staff) => (await readInbox(h.db, who.email)).items.filter((n) => n.href === requestHref(id))
    // The demo admin and trader (the staff table's traders and admins); never the maker.
    for (const approver of [checker, { email: "trader@example.com", role: "trader" } as const]) {
      expect(await waiting(approver)).toMatchObject([
        { kind: "approval_waiting", title: "Approval waiting: buy BTCUSD request", detail: expect.stringContaining(`${me.email} asks for a second person to approve a buy BTCUSD request of 230.00 USD.`) as string },
      ])
    }
    expect(await waiting(me)).toEqual([])
  })

  it("of five rejections at once one wins; the others are told the request is REJECTED, and its reason is the winner's", async () => {
    const id = await request("150.00")
    const results = await Promise.allSettled(["a", "b", "c", "d", "e"].map((r) => rejectRequest(h.db, r < "c" ? checker : otherTrader, id, { reason: `reason ${r}` })))
    const won = results.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []))
    expect(won).toHaveLength(1)
    const lost = results.flatMap((r) => (r.status === "rejected" ? [problemOf(r.reason)] : []))
    expect(lost.map((p) => [p.status, p.code, p.meta?.state])).toEqual(Array.from({ length: 4 }, () => [409, "state_conflict", "REJECTED"]))
    // Told in words whether they lost before or after reading it PENDING (which one depends on the timing).
    for (const p of lost) expect(p.detail).toMatch(/^This request is REJECTED(; only a PENDING request can be changed| now; someone acted on it first)\.$/)
    expect(await getApproval(h.db, id)).toMatchObject({ state: "REJECTED", reason: won[0]!.reason, checker: won[0]!.checker })
  })

  it("a rejection keeps the checker's comment with the reason, and is logged by reference", async () => {
    const id = await request("150.00")
    const { result, lines } = await logLines(() => rejectRequest(h.db, checker, id, { reason: "too big", comment: "ask again on Monday" }))
    expect(result).toMatchObject({ state: "REJECTED", reason: "too big", comment: "ask again on Monday", checker: { email: checker.email, role: "admin" } })
    expect(linesOf(lines, "approval.rejected")).toEqual([expect.objectContaining({ intentId: id, checker: staffRef(checker.email) })])
  })

  it("a withdrawal keeps the maker's comment, names no checker, and ends the intent as withdrawn at that time", async () => {
    const id = await request("150.00")
    const at = new Date(Date.now() + 60_000)
    const withdrawn = await withdrawRequest(h.db, me, id, { comment: "wrong desk" }, { now: () => at })
    expect(withdrawn).toMatchObject({ state: "WITHDRAWN", placement: "NOT_SENT", comment: "wrong desk", reason: null, checker: null, decided_at: at.toISOString() })
    expect(await intentOf(id)).toMatchObject({ state: "FAILED", problem: expect.objectContaining({ code: "request_withdrawn" }) as unknown })
    const noComment = await withdrawRequest(h.db, me, await request("150.00"), {})
    expect(noComment).toMatchObject({ state: "WITHDRAWN", comment: null })
  })

  it("a request id that is not one, or that no request has, is 404 to read and to decide on, and nothing changes", async () => {
    const id = await request("150.00")
    for (const missing of ["not-a-request", randomUUID()]) {
      const answers = [
        await getApproval(h.db, missing).catch((e: unknown) => e),
        await approveRequest(h, checker, missing, {}, { heldQuotes }).catch((e: unknown) => e),
        await rejectRequest(h.db, checker, missing, { reason: "no" }).catch((e: unknown) => e),
        await withdrawRequest(h.db, me, missing, {}).catch((e: unknown) => e),
      ]
      expect(answers.map((e) => [problemOf(e).status, problemOf(e).code, problemOf(e).detail])).toEqual(
        Array.from({ length: 4 }, () => [404, "not_found", `No approval request ${missing}.`]),
      )
    }
    expect(await getApproval(h.db, id)).toMatchObject({ state: "PENDING", checker: null })
  })

  it("the list: a state filter shows that state only; pending first, oldest first, then the rest newest first; counts for whoever may approve", async () => {
    const base = Date.now() - 10 * 60_000
    const ids: string[] = []
    for (let i = 0; i < 4; i++) ids.push(await request("150.00", me, new Date(base + i * 60_000)))
    await rejectRequest(h.db, checker, ids[1]!, { reason: "no" })
    await withdrawRequest(h.db, me, ids[3]!, {})
    const mine = (items: { id: string }[]) => items.map((r) => r.id).filter((id) => ids.includes(id))

    const pending = await listApprovals(h.db, { state: "PENDING", limit: 200 }, new Date(), checker)
    expect(pending.items.every((r) => r.state === "PENDING")).toBe(true)
    expect(mine(pending.items)).toEqual([ids[0], ids[2]])
    expect(pending.pending_count).toBe(pending.items.length)

    const all = await listApprovals(h.db, { limit: 200 }, new Date(), checker)
    expect(mine(all.items)).toEqual([ids[0], ids[2], ids[3], ids[1]])
    const firstDecided = all.items.findIndex((r) => r.state !== "PENDING")
    expect(all.items.slice(firstDecided).every((r) => r.state !== "PENDING")).toBe(true)

    const forYou = async (viewer: Staff) => (await listApprovals(h.db, { limit: 1 }, new Date(), viewer)).pending_for_you
    expect(await forYou(checker)).toBe(pending.pending_count)
    expect(await forYou(me)).toBe(pending.pending_count - 2)
    expect(await forYou({ ...me, email: me.email.toUpperCase() })).toBe(pending.pending_count - 2)
    expect(await forYou(support)).toBe(0)
  })

  it("the list keeps one order for requests made at the same instant: pending in the order made, decided the last made first", async () => {
    const at = new Date(Date.now() - 5 * 60_000)
    const ids: string[] = []
    for (let i = 0; i < 3; i++) ids.push(await request("150.00", me, at))
    const mine = (items: { id: string }[]) => items.map((r) => r.id).filter((id) => ids.includes(id))
    for (let i = 0; i < 2; i++) expect(mine((await listApprovals(h.db, { state: "PENDING", limit: 200 }, new Date(), checker)).items)).toEqual(ids)
    // Rejected in another order than made: the list still goes by when they were made.
    for (const id of [ids[1]!, ids[0]!, ids[2]!]) await rejectRequest(h.db, checker, id, { reason: "no" })
    for (let i = 0; i < 2; i++) expect(mine((await listApprovals(h.db, { state: "REJECTED", limit: 200 }, new Date(), checker)).items)).toEqual([...ids].reverse())
  })

  it("an approved request the service refuses shows placement FAILED with the service's problem, and is logged", async () => {
    const before = (await readPolicy(h.db)).policy
    const limits: Policy["staff_limits"] = { [me.email]: { per_order: { USD: "2000000.00" }, per_day: { USD: "5000000.00" } } }
    await savePolicy(h.db, checker, { ...before, staff_limits: { ...before.staff_limits, ...limits } })
    try {
      // Over the service's own maximum per conversion (1,000,000 USD in the test sandbox).
      const id = await request("1000000.01")
      const { result, lines } = await logLines(() => approveRequest(h, checker, id, {}, { heldQuotes }))
      expect(result).toMatchObject({ state: "APPROVED", placement: "FAILED", record_id: null })
      expect(result.problem?.detail).toContain("above the maximum")
      expect(linesOf(lines, "approval.approved")).toEqual([expect.objectContaining({ intentId: id, checker: staffRef(checker.email), priceMoved: false })])
      expect(linesOf(lines, "approval.place_failed")).toEqual([expect.objectContaining({ intentId: id, error: expect.stringMatching(/^Upstream/) as string })])
      expect(await intentOf(id)).toMatchObject({ state: "FAILED", recordId: null })
    } finally {
      await savePolicy(h.db, checker, before)
    }
  })

  it("a maker whose email has capitals keeps their request through every read, and it is placed", async () => {
    const maker: Staff = { email: `Maker-${randomUUID().slice(0, 6)}@Example.com`, role: "trader" }
    await signsInBySso(h.db, maker)
    const { submission, refId } = await f.ask("160.00", maker)
    if (submission.kind !== "request") throw new Error("expected a request")
    expect((await listApprovals(h.db, { state: "PENDING", limit: 200 }, new Date(), checker)).items.map((r) => r.id)).toContain(submission.request.id)
    const approved = await approveRequest(h, checker, submission.request.id, {}, { heldQuotes })
    expect(approved).toMatchObject({ state: "APPROVED", placement: "PLACED", maker: { email: maker.email } })
    expect((await executionsWithRef(refId)).map((r) => r.id)).toEqual([approved.record_id])
  })

  it("a maker demoted to viewer: their request is voided on the next read (logged by reference), and an approval after is told why", async () => {
    const maker: Staff = { email: `demoted-${randomUUID().slice(0, 6)}@example.com`, role: "trader" }
    await signsInBySso(h.db, maker)
    const id = await request("150.00", maker)
    await signsInBySso(h.db, { ...maker, role: "viewer" })
    const reason = "the maker's role is now viewer, and placing an order needs trader or admin"
    const { lines } = await logLines(() => listApprovals(h.db, { limit: 1 }, new Date(), checker))
    expect(linesOf(lines, "approval.voided")).toEqual([expect.objectContaining({ maker: staffRef(maker.email), reason, requests: 1 })])
    const [row] = await h.db.select().from(consoleApprovals).where(eq(consoleApprovals.intentId, id))
    expect(row).toMatchObject({ state: "VOIDED", reason })
    const approval = await approveRequest(h, checker, id, {}, { heldQuotes }).catch((e: unknown) => e)
    expect(problemOf(approval)).toMatchObject({ status: 409, code: "state_conflict", meta: { state: "VOIDED", reason } })
    expect(problemOf(approval).detail).toBe(`This request was voided (${reason}); nothing was sent.`)
    expect(await intentOf(id)).toMatchObject({ state: "FAILED", recordId: null, problem: expect.objectContaining({ code: "request_voided" }) as unknown })
  })

  it("a maker who loses access while an approval is on its way: the request ends VOIDED with the reason, the approval is told why, nothing is sent", async () => {
    for (const [after, reason] of [
      [null, "the maker is no longer on the staff"],
      ["viewer", "the maker's role is now viewer, and placing an order needs trader or admin"],
    ] as const) {
      const maker: Staff = { email: `leaving-${randomUUID().slice(0, 6)}@example.com`, role: "trader" }
      await signsInBySso(h.db, maker)
      const { submission, refId } = await f.ask("170.00", maker)
      if (submission.kind !== "request") throw new Error("expected a request")
      // Their provider refuses them from now on; the directory lists them as a trader for its first answer only.
      await recordAuthEvent(h.db, { kind: "sign_in_failed", email: maker.email, detail: { provider: "oidc", subject: "x", reason: "no console role" } })
      let asked = 0
      const directory = (email: string): Role | null => (email === maker.email ? (asked++ === 0 ? "trader" : after) : (DEMO_USERS.find((u) => u.email === email)?.role ?? null))
      // This instance's sweep has just run (with the maker still a trader), so the approval's
      // own check of the request asks first and finds them a trader; the maker's role read after it finds them gone.
      const now = new Date()
      await endLapsed(h.db, now, (email) => (email === maker.email ? "trader" : (DEMO_USERS.find((u) => u.email === email)?.role ?? null)))
      const approval = await approveRequest(h, checker, submission.request.id, {}, { heldQuotes, directory, now: () => new Date(now.getTime() + 1) }).catch((e: unknown) => e)
      expect(problemOf(approval)).toMatchObject({ status: 409, code: "state_conflict", meta: { state: "VOIDED", reason } })
      expect(problemOf(approval).detail).toBe(`This request was voided (${reason}); nothing was sent.`)
      expect(await intentOf(submission.request.id)).toMatchObject({ state: "FAILED", recordId: null, problem: expect.objectContaining({ code: "request_voided" }) as unknown })
      expect(await executionsWithRef(refId)).toEqual([])
    }
  })
})
