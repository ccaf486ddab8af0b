import { eq } from "drizzle-orm"
import { beforeAll, beforeEach, describe, expect, it } from "vitest"
import { listPasskeys, registerPasskey, registrationOptions, removePasskey, renamePasskey } from "@/lib/auth/passkeys"
import type { Staff } from "@/lib/auth/roles"
import type { RelyingParty } from "@/lib/auth/webauthn"
import { listDecisions } from "@/lib/console/approvals/decision-trail"
import { approveRequest, rejectRequest } from "@/lib/console/approvals/decisions"
import { getApproval } from "@/lib/console/approvals/reads"
import type { StepUp } from "@/lib/console/approvals/step-up"
import { readPolicy } from "@/lib/console/policy"
import { consoleIntents, consolePasskeys } from "@/lib/db/schema"
import { ApprovalsFixture, checker, otherTrader, problemOf } from "@/test/approvals"
import { type SoftCredential, assert, register } from "@/test/authenticator"
import type { ConsoleHarness } from "@/test/console"
import { testDrivers } from "@/test/db"

const ORIGIN = "http://localhost:3000"
const rp: RelyingParty = { id: "localhost", name: "Treasury console", origin: ORIGIN }

/**
 * Step-up (STEP_UP=webauthn) against real passkey ceremonies: a software authenticator
 * makes real credentials and signatures, the server's checks run for real. Every refusal
 * leaves the request PENDING, its intent waiting, nothing at the service, and is on the
 * decision trail with its code.
 */
describe.each(testDrivers())("passkeys and step-up for decisions, on %s", (driver) => {
  const f = new ApprovalsFixture(driver)
  const { heldQuotes, executionsWithRef, ask } = f
  let h: ConsoleHarness
  const keys = new Map<string, SoftCredential>()

  async function enrol(who: Staff, name = "laptop"): Promise<SoftCredential> {
    const options = await registrationOptions(h.db, who, rp)
    const { credential, response } = register(options, ORIGIN)
    await registerPasskey(h.db, who, rp, { name, response })
    return credential
  }

  beforeAll(async () => {
    h = f.h
    keys.set(checker.email, await enrol(checker))
    keys.set(otherTrader.email, await enrol(otherTrader))
  })
  beforeEach(() => {
    h = f.h
  })

  const on = (assertion?: ReturnType<typeof assert>): StepUp => ({ mode: "webauthn", rp, assertion: assertion })

  /** A request, and the challenge step-up asks the checker to sign for approving it. */
  async function pending(amount = "200.00", action: "approve" | "reject" = "approve", who: Staff = checker) {
    const { submission, refId } = await ask(amount)
    if (submission.kind !== "request") throw new Error("expected a request")
    const id = submission.request.id
    const asked = await (action === "approve"
      ? approveRequest(h, who, id, {}, { heldQuotes, stepUp: on() })
      : rejectRequest(h.db, who, id, { reason: "no" }, { stepUp: on() })
    ).catch((e: unknown) => e)
    const problem = problemOf(asked)
    expect(problem).toMatchObject({ status: 403, code: "step_up_required" })
    const stepUp = problem.meta?.step_up as { options: { challenge: string; rpId: string; userVerification: string }; digest: string; authorises: Record<string, unknown> }
    return { id, refId, stepUp }
  }

  async function unchanged(id: string, refId: string) {
    expect(await getApproval(h.db, id)).toMatchObject({ state: "PENDING", placement: "NOT_SENT", checker: null })
    const [intent] = await h.db.select().from(consoleIntents).where(eq(consoleIntents.id, id))
    expect(intent).toMatchObject({ state: "AWAITING_APPROVAL", recordId: null })
    expect(await executionsWithRef(refId)).toEqual([])
  }

  it("a passkey is registered, named, renamed and removed by its owner only; a registration challenge is good once", async () => {
    const who: Staff = { email: "passkey-owner@example.com", role: "trader" }
    const options = await registrationOptions(h.db, who, rp)
    expect(options).toMatchObject({ rp: { id: "localhost" }, authenticatorSelection: { userVerification: "required" } })
    const { response } = register(options, ORIGIN)
    const kept = await registerPasskey(h.db, who, rp, { name: "YubiKey", response })
    expect(await listPasskeys(h.db, who.email)).toMatchObject([{ id: kept.id, name: "YubiKey", last_used_at: null }])
    // The same answer again: its challenge was used.
    const again = await registerPasskey(h.db, who, rp, { name: "copy", response }).catch((e: unknown) => e)
    expect(problemOf(again)).toMatchObject({ status: 400, code: "passkey_invalid" })
    // An answer made for another origin is refused, and its challenge is spent.
    const elsewhere = register(await registrationOptions(h.db, who, rp), "http://evil.localhost:3000")
    expect(problemOf(await registerPasskey(h.db, who, rp, { name: "x", response: elsewhere.response }).catch((e: unknown) => e))).toMatchObject({ code: "passkey_invalid" })
    expect(await listPasskeys(h.db, who.email)).toHaveLength(1)
    // Someone else can neither rename nor remove it.
    expect(problemOf(await renamePasskey(h.db, checker, kept.id, "mine").catch((e: unknown) => e))).toMatchObject({ status: 404 })
    expect(problemOf(await removePasskey(h.db, checker, kept.id).catch((e: unknown) => e))).toMatchObject({ status: 404 })
    expect(await renamePasskey(h.db, who, kept.id, "Blue key")).toMatchObject({ name: "Blue key" })
    await removePasskey(h.db, who, kept.id)
    expect(await listPasskeys(h.db, who.email)).toEqual([])
  })

  it("without an assertion: 403 step_up_required with a challenge bound to the digest of what is authorised; nothing changes", async () => {
    const { id, refId, stepUp } = await pending("201.00")
    expect(stepUp.options).toMatchObject({ rpId: "localhost", userVerification: "required" })
    // The policy version is its number: the one in force now, and the one the request was judged under.
    const version = (await readPolicy(h.db)).version
    expect(version).toBeGreaterThan(0)
    expect(stepUp.authorises).toMatchObject({
      action: "approve",
      requests: [{ id, market: "BTCUSD", side: "BUY", amount: "201.00", currency: "USD", judged_under: version, approvals_required: 1 }],
      policy_version: version,
    })
    expect(stepUp.digest).toMatch(/^[0-9a-f]{64}$/)
    await unchanged(id, refId)
    expect(await listDecisions(h.db, { requestId: id, limit: 5 })).toMatchObject([{ outcome: "step_up_required", digest: stepUp.digest, credential_id: null }])
  })

  it("with the checker's passkey over that challenge: approved and placed once; the trail holds the credential, user verification and digest", async () => {
    const { id, refId, stepUp } = await pending("202.00")
    const key = keys.get(checker.email)!
    const approved = await approveRequest(h, checker, id, {}, { heldQuotes, stepUp: on(assert(key, stepUp.options.challenge, ORIGIN)) })
    expect(approved).toMatchObject({ state: "APPROVED", placement: "PLACED" })
    expect(await executionsWithRef(refId)).toHaveLength(1)
    const [done] = await listDecisions(h.db, { requestId: id, limit: 1 })
    expect(done).toMatchObject({ outcome: "done", credential_id: key.id, user_verified: true, digest: stepUp.digest, staff_email: checker.email })
    const [stored] = await h.db.select().from(consolePasskeys).where(eq(consolePasskeys.id, key.id))
    expect(stored?.counter).toBe(key.counter)
    expect(stored?.lastUsedAt).not.toBeNull()
  })

  it("refusals name why, change nothing and are on the trail: replayed, other digest, another person's credential, expired, not user-verified, wrong origin", async () => {
    const key = keys.get(checker.email)!
    let target = ""
    const cases: [string, (p: Awaited<ReturnType<typeof pending>>) => Promise<unknown>][] = [
      ["step_up_replayed", async (p) => {
        const assertion = assert(key, p.stepUp.options.challenge, ORIGIN)
        // The assertion is spent on another request's decision first (refused there: not its digest).
        const other = await pending("203.00")
        await approveRequest(h, checker, other.id, {}, { heldQuotes, stepUp: on(assertion) }).catch(() => null)
        return approveRequest(h, checker, p.id, {}, { heldQuotes, stepUp: on(assertion) })
      }],
      ["step_up_digest_mismatch", async (p) => {
        const other = await pending("204.00")
        return approveRequest(h, checker, p.id, {}, { heldQuotes, stepUp: on(assert(key, other.stepUp.options.challenge, ORIGIN)) })
      }],
      ["step_up_foreign_credential", async () => {
        // otherTrader is asked, and answers with the checker's passkey.
        const mine = await pending("205.00", "approve", otherTrader)
        target = mine.id
        return approveRequest(h, otherTrader, mine.id, {}, { heldQuotes, stepUp: on(assert(key, mine.stepUp.options.challenge, ORIGIN)) })
      }],
      ["step_up_expired", (p) => {
        const later = () => new Date(Date.now() + 3 * 60_000)
        return approveRequest(h, checker, p.id, {}, { heldQuotes, now: later, stepUp: on(assert(key, p.stepUp.options.challenge, ORIGIN)) })
      }],
      ["step_up_not_user_verified", (p) => approveRequest(h, checker, p.id, {}, { heldQuotes, stepUp: on(assert(key, p.stepUp.options.challenge, ORIGIN, { userVerified: false })) })],
      ["step_up_invalid", (p) => approveRequest(h, checker, p.id, {}, { heldQuotes, stepUp: on(assert(key, p.stepUp.options.challenge, "http://evil.localhost:3000")) })],
    ]
    for (const [code, attempt] of cases) {
      const p = await pending("206.00")
      target = p.id
      const outcome = await attempt(p).catch((e: unknown) => e)
      expect(problemOf(outcome), code).toMatchObject({ status: 403, code })
      await unchanged(p.id, p.refId)
      const [last] = await listDecisions(h.db, { requestId: target, limit: 1 })
      // The credential presented is recorded with the refusal; user verification only once proven.
      expect(last, code).toMatchObject({ action: "approve", outcome: code, credential_id: key.id, user_verified: null })
    }
  })

  it("reject needs step-up too, over its own digest: an approve's assertion does not reject", async () => {
    const key = keys.get(checker.email)!
    const { id, refId, stepUp } = await pending("207.00", "reject")
    expect(stepUp.authorises).toMatchObject({ action: "reject" })
    const forApprove = await pending("208.00")
    const wrong = await rejectRequest(h.db, checker, id, { reason: "no" }, { stepUp: on(assert(key, forApprove.stepUp.options.challenge, ORIGIN)) }).catch((e: unknown) => e)
    expect(problemOf(wrong)).toMatchObject({ code: "step_up_digest_mismatch" })
    await unchanged(id, refId)
    const again = await pending("209.00", "reject")
    const rejected = await rejectRequest(h.db, checker, again.id, { reason: "too large" }, { stepUp: on(assert(key, again.stepUp.options.challenge, ORIGIN)) })
    expect(rejected).toMatchObject({ state: "REJECTED", reason: "too large" })
    expect(await listDecisions(h.db, { requestId: again.id, limit: 1 })).toMatchObject([{ action: "reject", outcome: "done", credential_id: key.id, user_verified: true, digest: again.stepUp.digest }])
  })
})
