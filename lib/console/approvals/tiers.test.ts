import { eq } from "drizzle-orm"
import { beforeAll, beforeEach, describe, expect, it } from "vitest"
import { ensureStaffBootstrap } from "@/lib/auth/staff"
import type { Staff } from "@/lib/auth/roles"
import { staffRef } from "@/lib/auth/staff-ref"
import { approveMany } from "@/lib/console/approvals/bulk"
import { approveRequest, rejectRequest } from "@/lib/console/approvals/decisions"
import type { StepUp } from "@/lib/console/approvals/step-up"
import { getApproval, listApprovals } from "@/lib/console/approvals/reads"
import { requestHref } from "@/lib/console/notify/approvals"
import { readInbox } from "@/lib/console/notify/inbox"
import { readPolicy, savePolicy } from "@/lib/console/policy"
import { consoleApprovalVotes } from "@/lib/db/schema"
import { SINGLE_APPROVER, approvalRequirement } from "@/lib/limits"
import { toDecimal } from "@/lib/money"
import { policySchema } from "@/lib/schemas/approvals"
import { ApprovalsFixture, TEST_POLICY, checker, otherTrader, problemOf } from "@/test/approvals"
import type { ConsoleHarness } from "@/test/console"
import { testDrivers } from "@/test/db"
import { linesOf, logLines } from "@/test/log-lines"

/** Tiers as the tests use them: 500 USD and over needs two approvers, 800 and over two admins. */
const TIERS = [
  { at_or_over: { USD: "500.00" }, approvers: 2, roles: ["trader", "admin"] as ("trader" | "admin")[] },
  { at_or_over: { USD: "800.00" }, approvers: 2, roles: ["admin"] as ("trader" | "admin")[] },
]

describe("the tier a request falls in", () => {
  const usd = (amount: string) => ({ amount: toDecimal(amount), currency: "USD" })

  it("is the highest tier reached in the request's currency; none reached, or no tiers, is one approver, trader or admin", () => {
    expect(approvalRequirement(TIERS, usd("499.99"))).toEqual(SINGLE_APPROVER)
    expect(approvalRequirement(TIERS, usd("500.00"))).toEqual({ approvers: 2, roles: ["trader", "admin"], tier: { index: 0, at_or_over: "500.00" } })
    expect(approvalRequirement(TIERS, usd("800.00"))).toEqual({ approvers: 2, roles: ["admin"], tier: { index: 1, at_or_over: "800.00" } })
    // Order in the list does not matter: the highest start reached wins.
    expect(approvalRequirement([...TIERS].reverse(), usd("900.00")).roles).toEqual(["admin"])
    // A currency a tier does not name is not in that tier.
    expect(approvalRequirement(TIERS, { amount: toDecimal("5000.00"), currency: "EUR" })).toEqual(SINGLE_APPROVER)
    expect(approvalRequirement(undefined, usd("1000000.00"))).toEqual(SINGLE_APPROVER)
  })

  it("a policy's tiers are checked field by field; a policy without tiers stays valid", () => {
    expect(policySchema.safeParse(TEST_POLICY).success).toBe(true)
    expect(policySchema.parse({ ...TEST_POLICY, approval_tiers: TIERS }).approval_tiers).toEqual(TIERS)
    const issues = (tiers: unknown) => (policySchema.safeParse({ ...TEST_POLICY, approval_tiers: tiers }).error?.issues ?? []).map((i) => `${i.path.join(".")}: ${i.message}`)
    expect(issues([{ at_or_over: { USD: "500.00" }, approvers: 0, roles: ["admin"] }])).toEqual(["approval_tiers.0.approvers: must be at least 1"])
    expect(issues([{ at_or_over: { USD: "500.00" }, approvers: 6, roles: ["admin"] }])).toEqual(["approval_tiers.0.approvers: must be at most 5"])
    expect(issues([{ at_or_over: { USD: "500.00" }, approvers: 2, roles: [] }])).toEqual(["approval_tiers.0.roles: name at least one role that may approve"])
    expect(issues([{ at_or_over: { USD: "500.00" }, approvers: 2, roles: ["viewer"] }])).toEqual(["approval_tiers.0.roles.0: must be one of trader, admin"])
    expect(issues([{ at_or_over: { USD: "500.00" }, approvers: 2, roles: ["admin", "admin"] }])).toEqual(["approval_tiers.0.roles: must not repeat a role"])
    expect(issues([{ at_or_over: {}, approvers: 2, roles: ["admin"] }])).toEqual(["approval_tiers.0.at_or_over: name where the tier starts in at least one currency"])
    expect(issues([TIERS[0], { ...TIERS[1], at_or_over: { USD: "500" } }])).toEqual(["approval_tiers.1.at_or_over.USD: tier 1 starts at the same amount"])
  })
})

describe.each(testDrivers())("tiered approvals against the sandbox on %s", (driver) => {
  const f = new ApprovalsFixture(driver)
  const { heldQuotes, executionsWithRef, ask } = f
  let h: ConsoleHarness
  let me: Staff
  const secondAdmin: Staff = { email: "admin2@example.com", role: "admin" }
  beforeAll(async () => {
    await savePolicy(f.h.db, checker, { ...TEST_POLICY, approval_tiers: TIERS })
  })
  beforeEach(() => {
    ;({ h, me } = f)
  })

  it("under the first tier a request needs one approver, as before tiers", async () => {
    const { submission } = await ask("200.00")
    if (submission.kind !== "request") throw new Error("expected a request")
    expect(submission.request.approvals).toEqual({ required: 1, roles: ["trader", "admin"], given: [] })
    const approved = await approveRequest(h, otherTrader, submission.request.id, {}, { heldQuotes })
    expect(approved).toMatchObject({ state: "APPROVED", placement: "PLACED", approvals: { required: 1, given: [{ email: otherTrader.email, role: "trader" }] } })
  })

  it("a two-approver request waits after the first approval (1 of 2, nothing sent), refuses the same approver twice, and places on the second", async () => {
    const { submission, refId } = await ask("600.00")
    if (submission.kind !== "request") throw new Error("expected a request")
    const id = submission.request.id
    expect(submission.request.approvals).toMatchObject({ required: 2, roles: ["trader", "admin"], given: [] })
    const first = await approveRequest(h, checker, id, { comment: "one" }, { heldQuotes })
    expect(first).toMatchObject({ state: "PENDING", placement: "NOT_SENT", checker: null, approvals: { required: 2, given: [{ email: checker.email, role: "admin" }] } })
    expect(await executionsWithRef(refId)).toHaveLength(0)
    const twice = await approveRequest(h, checker, id, {}, { heldQuotes }).catch((e: unknown) => e)
    expect(problemOf(twice)).toMatchObject({ status: 409, code: "state_conflict", meta: { already_approved: true } })
    const own = await approveRequest(h, me, id, {}, { heldQuotes }).catch((e: unknown) => e)
    expect(problemOf(own)).toMatchObject({ status: 403, code: "not_allowed" })
    expect((await getApproval(h.db, id)).approvals.given).toHaveLength(1)
    // The first approver has nothing left to do on it; another trader has.
    const counts = async (who: Staff) => (await listApprovals(h.db, { state: "PENDING", limit: 200 }, new Date(), who)).pending_for_you
    const before = await counts(otherTrader)
    expect(await counts(checker)).toBe(before - 1)
    const second = await approveRequest(h, otherTrader, id, {}, { heldQuotes })
    expect(second).toMatchObject({ state: "APPROVED", placement: "PLACED", checker: { email: otherTrader.email } })
    expect(second.approvals.given.map((g) => g.email)).toEqual([checker.email, otherTrader.email])
    expect((await executionsWithRef(refId)).map((r) => r.id)).toEqual([second.record_id])
  })

  it("a list holding a request its checker has approved already (1 of 2) is refused whole: 409, nothing recorded or placed for the others", async () => {
    const asked = await Promise.all([ask("210.00"), ask("610.00")])
    const [one, two] = asked.map(({ submission, refId }) => {
      if (submission.kind !== "request") throw new Error("expected a request")
      return { id: submission.request.id, refId }
    })
    await approveRequest(h, checker, two!.id, {}, { heldQuotes })
    const again = await approveMany(h, checker, [one!.id, two!.id], {}, { heldQuotes }).catch((e: unknown) => e)
    expect(problemOf(again)).toMatchObject({ status: 409, code: "state_conflict", meta: { already_approved: true } })
    expect(await getApproval(h.db, one!.id)).toMatchObject({ state: "PENDING", approvals: { given: [] } })
    expect(await getApproval(h.db, two!.id)).toMatchObject({ state: "PENDING", approvals: { given: [{ email: checker.email }] } })
    for (const { refId } of [one!, two!]) expect(await executionsWithRef(refId)).toEqual([])
  })

  it("20 concurrent final approvals of a two-approver request over two instances place exactly one record", async () => {
    const { submission, refId } = await ask("650.00")
    if (submission.kind !== "request") throw new Error("expected a request")
    const id = submission.request.id
    await approveRequest(h, checker, id, {}, { heldQuotes })
    const approvers: Staff[] = Array.from({ length: 20 }, (_, i) => ({ email: `approver-${i}@example.com`, role: "trader" }))
    const instances = [h.anotherInstance(), h.anotherInstance()]
    const results = await Promise.allSettled(
      approvers.map((who, i) => approveRequest(instances[i % 2]!, who, id, {}, { heldQuotes: () => instances[i % 2]!.upstream.listQuotes([]) })),
    )
    const won = results.filter((r) => r.status === "fulfilled")
    const lost = results.flatMap((r) => (r.status === "rejected" ? [problemOf(r.reason)] : []))
    expect(won).toHaveLength(1)
    expect(lost.map((p) => p.status)).toEqual(Array.from({ length: 19 }, () => 409))
    expect(new Set(lost.map((p) => p.code))).toEqual(new Set(["state_conflict"]))
    expect(await executionsWithRef(refId)).toHaveLength(1)
    const settled = await getApproval(h.db, id)
    expect(settled).toMatchObject({ state: "APPROVED", placement: "PLACED" })
    // Two approvals recorded: the first and the one that won; the losers left none.
    expect(await h.db.select().from(consoleApprovalVotes).where(eq(consoleApprovalVotes.intentId, id))).toHaveLength(2)
  })

  it("20 concurrent first approvals of a two-approver request: two approvals land, the rest get 409; one record", async () => {
    const { submission, refId } = await ask("700.00")
    if (submission.kind !== "request") throw new Error("expected a request")
    const id = submission.request.id
    const approvers: Staff[] = Array.from({ length: 20 }, (_, i) => ({ email: `racer-${i}@example.com`, role: "trader" }))
    const instances = [h.anotherInstance(), h.anotherInstance()]
    const results = await Promise.allSettled(
      approvers.map((who, i) => approveRequest(instances[i % 2]!, who, id, {}, { heldQuotes: () => instances[i % 2]!.upstream.listQuotes([]) })),
    )
    // Two won (the first approval and the last), each told how the request stands after it.
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(2)
    expect(results.filter((r) => r.status === "rejected").map((r) => problemOf((r).reason).status)).toEqual(Array.from({ length: 18 }, () => 409))
    expect(await executionsWithRef(refId)).toHaveLength(1)
    expect(await getApproval(h.db, id)).toMatchObject({ state: "APPROVED", placement: "PLACED" })
    expect((await getApproval(h.db, id)).approvals.given).toHaveLength(2)
  })

  it("the top tier allows admins only: a trader may neither approve nor reject (403, nothing recorded); an admin may reject", async () => {
    // Who is told is read from the staff table: the sandbox's demo users as the console starts with them.
    await ensureStaffBootstrap(h.db)
    const { submission, refId } = await ask("900.00")
    if (submission.kind !== "request") throw new Error("expected a request")
    const id = submission.request.id
    expect(submission.request.approvals).toMatchObject({ required: 2, roles: ["admin"] })
    const byTrader = await approveRequest(h, otherTrader, id, {}, { heldQuotes }).catch((e: unknown) => e)
    expect(problemOf(byTrader)).toMatchObject({ status: 403, code: "not_allowed" })
    expect(problemOf(byTrader).detail).toContain("admin")
    const rejectByTrader = await rejectRequest(h.db, otherTrader, id, { reason: "too big" }).catch((e: unknown) => e)
    expect(problemOf(rejectByTrader)).toMatchObject({ status: 403, code: "not_allowed" })
    const bulkByTrader = await approveMany(h, otherTrader, [id], {}, { heldQuotes }).catch((e: unknown) => e)
    expect(problemOf(bulkByTrader)).toMatchObject({ status: 403, code: "not_allowed" })
    expect(await getApproval(h.db, id)).toMatchObject({ state: "PENDING", approvals: { given: [] } })
    // Not counted as theirs to act on.
    const listed = await listApprovals(h.db, { state: "PENDING", limit: 200 }, new Date(), otherTrader)
    const forAdmin = await listApprovals(h.db, { state: "PENDING", limit: 200 }, new Date(), secondAdmin)
    expect(forAdmin.pending_for_you - listed.pending_for_you).toBeGreaterThanOrEqual(1)
    // Nor in a trader's inbox: only the admins are told it waits (the staff table's: the demo trader and admin).
    const told = async (email: string) => (await readInbox(h.db, email)).items.some((n) => n.href === requestHref(id))
    expect([await told("trader@example.com"), await told(checker.email)]).toEqual([false, true])
    await approveRequest(h, secondAdmin, id, {}, { heldQuotes })
    const rejected = await rejectRequest(h.db, checker, id, { reason: "over the desk's appetite" })
    expect(rejected).toMatchObject({ state: "REJECTED", placement: "NOT_SENT", approvals: { given: [{ email: secondAdmin.email }] } })
    expect(await executionsWithRef(refId)).toHaveLength(0)
  })

  it("approvers are told apart by email whatever its capitals, and a second approval or a role the tier does not allow is refused before any passkey is asked", async () => {
    const { submission, refId } = await ask("610.00")
    if (submission.kind !== "request") throw new Error("expected a request")
    const id = submission.request.id
    const { lines } = await logLines(() => approveRequest(h, checker, id, {}, { heldQuotes }))
    expect(linesOf(lines, "approval.approved_partly")).toEqual([expect.objectContaining({ intentId: id, checker: staffRef(checker.email) })])
    expect(linesOf(lines, "approval.approved")).toEqual([])
    const stepUp: StepUp = { mode: "webauthn", rp: { id: "localhost", name: "Treasury console", origin: "http://localhost:3000" } }
    for (const who of [checker, { ...checker, email: checker.email.toUpperCase() }]) {
      const again = await approveRequest(h, who, id, {}, { heldQuotes, stepUp }).catch((e: unknown) => e)
      expect(problemOf(again)).toMatchObject({
        status: 409,
        code: "state_conflict",
        detail: "You have approved this request already; it needs 2 different approvers.",
        meta: { state: "PENDING", already_approved: true },
      })
    }
    const top = await ask("810.00")
    if (top.submission.kind !== "request") throw new Error("expected a request")
    for (const action of ["approve", "reject"] as const) {
      const byTrader = await (action === "approve"
        ? approveRequest(h, otherTrader, top.submission.request.id, {}, { heldQuotes, stepUp })
        : rejectRequest(h.db, otherTrader, top.submission.request.id, { reason: "no" }, { stepUp })
      ).catch((e: unknown) => e)
      expect(problemOf(byTrader)).toMatchObject({ status: 403, code: "not_allowed", detail: `Only the roles admin may ${action} this request (its approval tier); your role is trader.` })
    }
    expect((await getApproval(h.db, id)).approvals.given.map((g) => g.email)).toEqual([checker.email])
    expect(await executionsWithRef(refId)).toHaveLength(0)
  })

  it("two approvals at once by the same approver: one is recorded, the other is told it approved already; nothing is sent", async () => {
    const { submission, refId } = await ask("620.00")
    if (submission.kind !== "request") throw new Error("expected a request")
    const id = submission.request.id
    const results = await Promise.allSettled([checker, { ...checker, email: checker.email.toUpperCase() }].map((who) => approveRequest(h, who, id, {}, { heldQuotes })))
    expect(results.filter((r) => r.status === "fulfilled").map((r) => r.value)).toMatchObject([{ state: "PENDING", approvals: { given: [{ email: checker.email }] } }])
    expect(results.flatMap((r) => (r.status === "rejected" ? [problemOf(r.reason)] : []))).toMatchObject([{ status: 409, code: "state_conflict", meta: { already_approved: true } }])
    expect(await h.db.select().from(consoleApprovalVotes).where(eq(consoleApprovalVotes.intentId, id))).toHaveLength(1)
    expect(await executionsWithRef(refId)).toHaveLength(0)
  })

  it("one who approved may still reject: the request ends REJECTED with their reason, their approval kept, nothing sent", async () => {
    const { submission, refId } = await ask("630.00")
    if (submission.kind !== "request") throw new Error("expected a request")
    const id = submission.request.id
    await approveRequest(h, otherTrader, id, { comment: "looked fine" }, { heldQuotes })
    const rejected = await rejectRequest(h.db, otherTrader, id, { reason: "the desk says no after all" })
    expect(rejected).toMatchObject({
      state: "REJECTED",
      placement: "NOT_SENT",
      reason: "the desk says no after all",
      comment: null,
      checker: { email: otherTrader.email, role: "trader" },
      approvals: { given: [{ email: otherTrader.email }] },
    })
    expect(await executionsWithRef(refId)).toHaveLength(0)
  })

  it("a request keeps the tier it was asked under: a later policy without tiers does not change what it needs", async () => {
    const { submission } = await ask("550.00")
    if (submission.kind !== "request") throw new Error("expected a request")
    const asked = submission.request.policy_version
    expect(asked).toBe((await readPolicy(h.db)).version)
    const saved = await savePolicy(h.db, checker, TEST_POLICY)
    expect(saved.version).toBe(asked! + 1)
    try {
      const first = await approveRequest(h, otherTrader, submission.request.id, {}, { heldQuotes })
      expect(first).toMatchObject({ state: "PENDING", approvals: { required: 2 } })
      // Without tiers, a new request needs one approver (the rule before tiers).
      const { submission: later } = await ask("550.00")
      if (later.kind !== "request") throw new Error("expected a request")
      expect(later.request.approvals).toEqual({ required: 1, roles: ["trader", "admin"], given: [] })
      expect([later.request.policy_version, (await getApproval(h.db, submission.request.id)).policy_version]).toEqual([saved.version, asked])
    } finally {
      await savePolicy(h.db, checker, { ...TEST_POLICY, approval_tiers: TIERS })
    }
  })
})
