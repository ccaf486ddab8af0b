import { eq } from "drizzle-orm"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { registerPasskey, registrationOptions } from "@/lib/auth/passkeys"
import type { Staff } from "@/lib/auth/roles"
import type { RelyingParty } from "@/lib/auth/webauthn"
import { listAudit } from "@/lib/console/audit"
import { listDecisions } from "@/lib/console/approvals/decision-trail"
import type { StepUp } from "@/lib/console/approvals/step-up"
import { readPolicy, savePolicy } from "@/lib/console/policy"
import {
  POLICY_CHANGE_TTL_MS,
  approvePolicyChange,
  listPolicyChanges,
  policyDigest,
  proposePolicyChange,
  rejectPolicyChange,
  withdrawPolicyChange,
} from "@/lib/console/policy-changes"
import type { Database } from "@/lib/db/client"
import { consolePolicyChanges, consoleStaff } from "@/lib/db/schema"
import { DEFAULT_POLICY, type Policy } from "@/lib/schemas/approvals"
import { problemOf } from "@/test/approvals"
import { type SoftCredential, assert, register } from "@/test/authenticator"
import { createTestDatabase, testDrivers } from "@/test/db"

const ORIGIN = "http://localhost:3000"
const rp: RelyingParty = { id: "localhost", name: "Treasury console", origin: ORIGIN }
const webauthn = (assertion?: ReturnType<typeof assert>): StepUp => ({ mode: "webauthn", rp, assertion })

const adminA: Staff = { email: "admin@example.com", role: "admin" }
const adminB: Staff = { email: "admin-b@example.com", role: "admin" }
const adminC: Staff = { email: "admin-c@example.com", role: "admin" }
const trader: Staff = { email: "trader@example.com", role: "trader" }

/** The policy with the traders' limit per order in USD set to `amount`. */
function withTraderPerOrder(policy: Policy, amount: string): Policy {
  const trader = policy.role_limits.trader ?? { per_order: {}, per_day: {} }
  return { ...policy, role_limits: { ...policy.role_limits, trader: { ...trader, per_order: { ...trader.per_order, USD: amount } } } }
}

async function failure(run: Promise<unknown>) {
  return problemOf(await run.then(() => new Error("expected a refusal"), (error: unknown) => error))
}

/**
 * The policy under four eyes against a real database (PGlite and Postgres): one admin's
 * change waits for another active admin's approval (with step-up over exactly that
 * change), applies only over the version it was made against, and every refusal changes
 * nothing and is on the decision trail; alone, an admin's change applies at once with
 * their own step-up and is flagged on the audit trail.
 */
describe.each(testDrivers())("policy changes under four eyes, on %s", (driver) => {
  let database: Database
  const keys = new Map<string, SoftCredential>()

  async function enrol(who: Staff): Promise<void> {
    const options = await registrationOptions(database.db, who, rp)
    const { credential, response } = register(options, ORIGIN)
    await registerPasskey(database.db, who, rp, { name: "laptop", response })
    keys.set(who.email, credential)
  }

  /** The assertion `who`'s passkey gives for the challenge a 403 step_up_required asked them to sign. */
  function signed(who: Staff, problem: ReturnType<typeof problemOf>) {
    const stepUp = problem.meta?.step_up as { options: { challenge: string } }
    return assert(keys.get(who.email)!, stepUp.options.challenge, ORIGIN)
  }

  async function setAdmins(emails: string[], status: "active" | "disabled"): Promise<void> {
    for (const email of emails) {
      await database.db.insert(consoleStaff).values({ email, role: "admin", status, source: "invitation" }).onConflictDoUpdate({ target: consoleStaff.email, set: { status } })
    }
  }

  async function changeRow(id: string) {
    const [row] = await database.db.select().from(consolePolicyChanges).where(eq(consolePolicyChanges.id, id))
    return row!
  }

  beforeAll(async () => {
    database = await createTestDatabase(driver)
    for (const who of [adminA, adminB, adminC]) await enrol(who)
  })
  afterAll(async () => {
    await database?.close()
  })
  beforeEach(async () => {
    // No change left waiting by the test before; admins B and C active unless a test says otherwise.
    await database.db.update(consolePolicyChanges).set({ state: "WITHDRAWN" }).where(eq(consolePolicyChanges.state, "PENDING"))
    await setAdmins([adminB.email, adminC.email], "active")
  })

  it("with another active admin, a change waits (202's PENDING): nothing applies until another admin approves it with their passkey over exactly that change", async () => {
    const before = await readPolicy(database.db)
    const proposed = withTraderPerOrder(before.policy, "40000.00")
    const outcome = await proposePolicyChange(database.db, adminA, proposed, { stepUp: webauthn() })
    expect(outcome).toMatchObject({ kind: "pending", change: { state: "PENDING", base_version: before.version, proposed_by: adminA.email, policy_digest: policyDigest(proposed) } })
    const id = outcome.change.id
    expect((await readPolicy(database.db)).version).toBe(before.version)
    expect((await listPolicyChanges(database.db, { limit: 5 })).pending).toMatchObject({ id, state: "PENDING" })

    // Asked for the approver's passkey: the challenge is bound to the change's id, its policy's digest and its base version.
    const asked = await failure(approvePolicyChange(database.db, adminB, id, {}, { stepUp: webauthn() }))
    expect(asked).toMatchObject({ status: 403, code: "step_up_required", detail: expect.stringMatching(/^This policy change needs your passkey/) as string })
    expect(asked.meta?.step_up).toMatchObject({ authorises: { action: "policy_change", change_id: id, policy_digest: policyDigest(proposed), base_version: before.version } })
    expect(await changeRow(id)).toMatchObject({ state: "PENDING" })

    // Another admin's passkey for B's challenge: refused, nothing changes.
    const foreign = await failure(approvePolicyChange(database.db, adminB, id, {}, { stepUp: webauthn(assert(keys.get(adminC.email)!, (asked.meta?.step_up as { options: { challenge: string } }).options.challenge, ORIGIN)) }))
    expect(foreign.code).toMatch(/^step_up_/)
    expect(await changeRow(id)).toMatchObject({ state: "PENDING" })
    expect((await readPolicy(database.db)).version).toBe(before.version)

    const again = await failure(approvePolicyChange(database.db, adminB, id, {}, { stepUp: webauthn() }))
    const applied = await approvePolicyChange(database.db, adminB, id, { comment: "agreed" }, { stepUp: webauthn(signed(adminB, again)) })
    expect(applied).toMatchObject({ state: "APPLIED", decided_by: adminB.email, applied_version: before.version + 1, single_admin: false, credential_id: keys.get(adminB.email)!.id, user_verified: true })
    const after = await readPolicy(database.db)
    expect(after.version).toBe(before.version + 1)
    expect(after.policy.role_limits.trader?.per_order.USD).toBe("40000.00")

    // The audit trail's policy entry: before and after, who proposed, who approved, the passkey.
    const { items } = await listAudit(database.db, { operation: "update_policy", limit: 1 })
    expect(items[0]?.request).toMatchObject({ version: after.version, change_id: id, proposed_by: adminA.email, approved_by: adminB.email, single_admin: false, step_up: { credential_id: keys.get(adminB.email)!.id } })
    const trail = await listDecisions(database.db, { requestId: id, limit: 10 })
    expect(trail.map((d) => [d.action, d.outcome])).toEqual([
      ["policy_approve", "done"],
      ["policy_approve", "step_up_required"],
      ["policy_approve", foreign.code],
      ["policy_approve", "step_up_required"],
      ["policy_propose", "done"],
    ])

    // Approved once: a second approval is told it is no longer pending.
    const late = await failure(approvePolicyChange(database.db, adminC, id, {}))
    expect(late).toMatchObject({ status: 409, code: "state_conflict", meta: { state: "APPLIED" } })
  })

  it("refusals change nothing and are on the decision trail: the maker's own approval, a non-admin, a second change while one waits", async () => {
    const before = await readPolicy(database.db)
    const { change } = await proposePolicyChange(database.db, adminA, withTraderPerOrder(before.policy, "41000.00"))
    const self = await failure(approvePolicyChange(database.db, adminA, change.id, {}, { stepUp: webauthn() }))
    expect(self).toMatchObject({ status: 403, code: "not_allowed", detail: expect.stringContaining("another admin must approve it") as string })
    const byTrader = await failure(approvePolicyChange(database.db, trader, change.id, {}))
    expect(byTrader).toMatchObject({ status: 403, code: "role_required" })
    const rejectOwn = await failure(rejectPolicyChange(database.db, adminA, change.id, { reason: "no" }))
    expect(rejectOwn).toMatchObject({ status: 403, code: "not_allowed" })
    const withdrawOthers = await failure(withdrawPolicyChange(database.db, adminB, change.id))
    expect(withdrawOthers).toMatchObject({ status: 403, code: "not_allowed" })
    const second = await failure(proposePolicyChange(database.db, adminB, withTraderPerOrder(before.policy, "42000.00")))
    expect(second).toMatchObject({ status: 409, code: "policy_change_pending", meta: { change_id: change.id } })
    const unknown = await failure(approvePolicyChange(database.db, adminB, "00000000-0000-4000-8000-000000000000", {}))
    expect(unknown).toMatchObject({ status: 404, code: "not_found" })

    expect(await changeRow(change.id)).toMatchObject({ state: "PENDING", decidedBy: null })
    expect(await readPolicy(database.db)).toMatchObject({ version: before.version })
    const trail = await listDecisions(database.db, { requestId: change.id, limit: 10 })
    expect(trail.map((d) => [d.action, d.staff_email, d.outcome])).toEqual([
      ["policy_withdraw", adminB.email, "not_allowed"],
      ["policy_reject", adminA.email, "not_allowed"],
      ["policy_approve", trader.email, "role_required"],
      ["policy_approve", adminA.email, "not_allowed"],
      ["policy_propose", adminA.email, "done"],
    ])
    const all = await listDecisions(database.db, { limit: 10 })
    expect(all.find((d) => d.action === "policy_propose" && d.staff_email === adminB.email)).toMatchObject({ outcome: "policy_change_pending" })

    // The maker withdraws it; another admin may then propose.
    expect(await withdrawPolicyChange(database.db, adminA, change.id)).toMatchObject({ state: "WITHDRAWN", decided_by: adminA.email })
    const rejected = await proposePolicyChange(database.db, adminB, withTraderPerOrder(before.policy, "42000.00"))
    expect(await rejectPolicyChange(database.db, adminA, rejected.change.id, { reason: "too high" })).toMatchObject({ state: "REJECTED", decided_by: adminA.email, reason: "too high" })
    expect(await readPolicy(database.db)).toMatchObject({ version: before.version })
  })

  it("a change whose base version is no longer in force when approved ends STALE (409 policy_stale) and applies nothing", async () => {
    const before = await readPolicy(database.db)
    const { change } = await proposePolicyChange(database.db, adminA, withTraderPerOrder(before.policy, "43000.00"))
    // Meanwhile the policy moved (another way in: a direct save).
    const moved = await savePolicy(database.db, adminC, withTraderPerOrder(before.policy, "44000.00"))
    const stale = await failure(approvePolicyChange(database.db, adminB, change.id, {}))
    expect(stale).toMatchObject({ status: 409, code: "policy_stale", meta: { base_version: before.version, version: moved.version, state: "STALE" } })
    expect(await changeRow(change.id)).toMatchObject({ state: "STALE", appliedVersion: null })
    expect(await readPolicy(database.db)).toMatchObject({ version: moved.version, policy: { role_limits: { trader: { per_order: { USD: "44000.00" } } } } })
    // Stale now: no longer pending.
    expect(await failure(approvePolicyChange(database.db, adminB, change.id, {}))).toMatchObject({ code: "state_conflict", meta: { state: "STALE" } })
  })

  it("a change expires after its time (409 policy_change_expired) and applies nothing", async () => {
    const before = await readPolicy(database.db)
    const at = new Date()
    const { change } = await proposePolicyChange(database.db, adminA, withTraderPerOrder(before.policy, "45000.00"), { now: () => at })
    const later = new Date(at.getTime() + POLICY_CHANGE_TTL_MS + 1000)
    const expired = await failure(approvePolicyChange(database.db, adminB, change.id, {}, { now: () => later }))
    expect(expired).toMatchObject({ status: 409, code: "policy_change_expired" })
    expect(await changeRow(change.id)).toMatchObject({ state: "EXPIRED" })
    expect(await readPolicy(database.db)).toMatchObject({ version: before.version })
    // A new one may be proposed once it expired.
    expect((await proposePolicyChange(database.db, adminA, withTraderPerOrder(before.policy, "45000.00"))).kind).toBe("pending")
  })

  it("two admins approving at the same moment over two instances: exactly one applies it, the other is told it is no longer pending (state_conflict, not policy_stale)", async () => {
    const before = await readPolicy(database.db)
    const { change } = await proposePolicyChange(database.db, adminA, withTraderPerOrder(before.policy, "46000.00"))
    // Two instances share the database (on Postgres, two connections of the pool at once).
    const results = await Promise.allSettled([approvePolicyChange(database.db, adminB, change.id, {}), approvePolicyChange(database.db, adminC, change.id, {})])
    const applied = results.filter((r) => r.status === "fulfilled")
    const refused = results.flatMap((r) => (r.status === "rejected" ? [problemOf(r.reason)] : []))
    expect(applied).toHaveLength(1)
    expect(refused).toMatchObject([{ status: 409, code: "state_conflict", meta: { state: "APPLIED" } }])
    expect(await readPolicy(database.db)).toMatchObject({ version: before.version + 1 })
    const { items } = await listAudit(database.db, { operation: "update_policy", limit: 5 })
    expect(items.filter((i) => (i.request as { change_id?: string }).change_id === change.id)).toHaveLength(1)
  })

  it("alone, an admin's change applies at once with their own passkey and is flagged single_admin on the audit trail", async () => {
    await setAdmins([adminB.email, adminC.email], "disabled")
    const before = await readPolicy(database.db)
    const proposed = withTraderPerOrder(before.policy, "47000.00")
    const asked = await failure(proposePolicyChange(database.db, adminA, proposed, { stepUp: webauthn() }))
    expect(asked).toMatchObject({ status: 403, code: "step_up_required", detail: expect.stringMatching(/^This policy change needs your passkey/) as string })
    expect(asked.meta?.step_up).toMatchObject({ authorises: { action: "policy_change", change_id: null, policy_digest: policyDigest(proposed), base_version: before.version } })
    expect(await readPolicy(database.db)).toMatchObject({ version: before.version })

    // Signed for another policy: refused.
    const other = withTraderPerOrder(before.policy, "48000.00")
    const mismatch = await failure(proposePolicyChange(database.db, adminA, other, { stepUp: webauthn(signed(adminA, asked)) }))
    expect(mismatch).toMatchObject({ status: 403, code: "step_up_digest_mismatch" })
    expect(await readPolicy(database.db)).toMatchObject({ version: before.version })

    const again = await failure(proposePolicyChange(database.db, adminA, proposed, { stepUp: webauthn() }))
    const outcome = await proposePolicyChange(database.db, adminA, proposed, { stepUp: webauthn(signed(adminA, again)) })
    expect(outcome).toMatchObject({ kind: "applied", change: { state: "APPLIED", single_admin: true, applied_version: before.version + 1, credential_id: keys.get(adminA.email)!.id } })
    expect(await readPolicy(database.db)).toMatchObject({ version: before.version + 1 })
    const { items } = await listAudit(database.db, { operation: "update_policy", limit: 1 })
    expect(items[0]).toMatchObject({ staff_email: adminA.email, request: { single_admin: true, version: before.version + 1, step_up: { credential_id: keys.get(adminA.email)!.id, user_verified: true } } })
    // (The expiry test's refusal is dated a day ahead: only this test's attempts, newest first.)
    const trail = (await listDecisions(database.db, { limit: 20 })).filter((d) => d.action === "policy_apply").slice(0, 4)
    expect(trail.map((d) => [d.action, d.outcome])).toEqual([
      ["policy_apply", "done"],
      ["policy_apply", "step_up_required"],
      ["policy_apply", "step_up_digest_mismatch"],
      ["policy_apply", "step_up_required"],
    ])
  })

  it("the digest of a policy does not depend on the order of its fields", () => {
    const { staff_limits: staffLimits, ...rest } = DEFAULT_POLICY
    const reordered: Policy = { staff_limits: staffLimits, ...rest }
    expect(Object.keys(reordered)).not.toEqual(Object.keys(DEFAULT_POLICY))
    expect(policyDigest(reordered)).toBe(policyDigest(DEFAULT_POLICY))
    expect(policyDigest(withTraderPerOrder(DEFAULT_POLICY, "1.00"))).not.toBe(policyDigest(DEFAULT_POLICY))
  })
})
