import { randomBytes, randomUUID } from "node:crypto"
import { type SQL, eq } from "drizzle-orm"
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest"
import { listPasskeys, registerPasskey, registrationOptions, removePasskey, renamePasskey } from "@/lib/auth/passkeys"
import type { Staff } from "@/lib/auth/roles"
import type { RelyingParty } from "@/lib/auth/webauthn"
import { listDecisions } from "@/lib/console/approvals/decision-trail"
import { approveRequest, rejectRequest } from "@/lib/console/approvals/decisions"
import { getApproval } from "@/lib/console/approvals/reads"
import { type StepUp, whatNeedsIt } from "@/lib/console/approvals/step-up"
import { readPolicy } from "@/lib/console/policy"
import { submitConversion } from "@/lib/console/submission"
import { consoleApprovalVotes, consoleIntents, consolePasskeys } from "@/lib/db/schema"
import { ApprovalsFixture, checker, otherTrader, problemOf, signsInBySso } from "@/test/approvals"
import { type SoftCredential, assert, register } from "@/test/authenticator"
import { type ConsoleHarness, createConsoleHarness } from "@/test/console"
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
    const approved = await approveRequest(h, checker, id, { comment: "checked the desk" }, { heldQuotes, stepUp: on(assert(key, stepUp.options.challenge, ORIGIN)) })
    expect(approved).toMatchObject({ state: "APPROVED", placement: "PLACED" })
    expect(await executionsWithRef(refId)).toHaveLength(1)
    // The approval itself keeps who gave it, with which passkey, over what, and their comment.
    expect(approved.approvals.given).toMatchObject([{ email: checker.email, role: "admin", credential_id: key.id, user_verified: true }])
    expect(await h.db.select().from(consoleApprovalVotes).where(eq(consoleApprovalVotes.intentId, id))).toMatchObject([
      { staffEmail: checker.email, credentialId: key.id, userVerified: true, digest: stepUp.digest, comment: "checked the desk" },
    ])
    const [done] = await listDecisions(h.db, { requestId: id, limit: 1 })
    expect(done).toMatchObject({ outcome: "done", credential_id: key.id, user_verified: true, digest: stepUp.digest, staff_email: checker.email })
    const [stored] = await h.db.select().from(consolePasskeys).where(eq(consolePasskeys.id, key.id))
    expect(stored?.counter).toBe(key.counter)
    expect(stored?.lastUsedAt).not.toBeNull()
  })

  it("refusals name why, change nothing and are on the trail: replayed, other digest, another person's credential, expired, not user-verified, wrong origin", async () => {
    const key = keys.get(checker.email)!
    let target = ""
    const why = (text: string) => `The passkey assertion is refused: ${text}. Nothing changed.`
    const cases: [string, string, (p: Awaited<ReturnType<typeof pending>>) => Promise<unknown>][] = [
      ["step_up_replayed", why("its challenge was already used: an assertion authorises one decision once"), async (p) => {
        const assertion = assert(key, p.stepUp.options.challenge, ORIGIN)
        // The assertion is spent on another request's decision first (refused there: not its digest).
        const other = await pending("203.00")
        await approveRequest(h, checker, other.id, {}, { heldQuotes, stepUp: on(assertion) }).catch(() => null)
        return approveRequest(h, checker, p.id, {}, { heldQuotes, stepUp: on(assertion) })
      }],
      ["step_up_digest_mismatch", why("it was given for another decision (its digest is not this one's)"), async (p) => {
        const other = await pending("204.00")
        return approveRequest(h, checker, p.id, {}, { heldQuotes, stepUp: on(assert(key, other.stepUp.options.challenge, ORIGIN)) })
      }],
      ["step_up_foreign_credential", why("its credential is another person's passkey"), async () => {
        // otherTrader is asked, and answers with the checker's passkey.
        const mine = await pending("205.00", "approve", otherTrader)
        target = mine.id
        return approveRequest(h, otherTrader, mine.id, {}, { heldQuotes, stepUp: on(assert(key, mine.stepUp.options.challenge, ORIGIN)) })
      }],
      ["step_up_expired", why("its challenge expired (2 minutes); ask for a new one"), (p) => {
        const later = () => new Date(Date.now() + 3 * 60_000)
        return approveRequest(h, checker, p.id, {}, { heldQuotes, now: later, stepUp: on(assert(key, p.stepUp.options.challenge, ORIGIN)) })
      }],
      ["step_up_not_user_verified", why("the authenticator did not verify the user (PIN or biometrics)"), (p) =>
        approveRequest(h, checker, p.id, {}, { heldQuotes, stepUp: on(assert(key, p.stepUp.options.challenge, ORIGIN, { userVerified: false })) })],
      ["step_up_invalid", why(`it does not verify (Unexpected authentication response origin "http://evil.localhost:3000", expected "${ORIGIN}")`), (p) => approveRequest(h, checker, p.id, {}, { heldQuotes, stepUp: on(assert(key, p.stepUp.options.challenge, "http://evil.localhost:3000")) })],
    ]
    for (const [code, detail, attempt] of cases) {
      const p = await pending("206.00")
      target = p.id
      const outcome = await attempt(p).catch((e: unknown) => e)
      // What the person is told: the code, and in words why (the API answers this problem as it is).
      expect(problemOf(outcome), code).toMatchObject({ status: 403, code, detail })
      await unchanged(p.id, p.refId)
      const [last] = await listDecisions(h.db, { requestId: target, limit: 1 })
      // The credential presented is recorded with the refusal; user verification only once proven.
      expect(last, code).toMatchObject({ action: "approve", outcome: code, credential_id: key.id, user_verified: null })
    }
  })

  it("each refusal says why in words, and a challenge or credential that does not fit is refused before anything changes", async () => {
    const key = keys.get(checker.email)!
    const stranger = register(await registrationOptions(h.db, { email: "unregistered@example.com", role: "trader" }, rp), ORIGIN).credential
    const why = (text: string) => `The passkey assertion is refused: ${text}. Nothing changed.`
    const cases: [string, string, (p: Awaited<ReturnType<typeof pending>>) => Promise<ReturnType<typeof assert>>][] = [
      ["step_up_invalid", why("its challenge is not one this console issued"), () => Promise.resolve(assert(key, randomBytes(32).toString("base64url"), ORIGIN))],
      ["step_up_invalid", why("it answers no challenge this console issued"), (p) => {
        const signed = assert(key, p.stepUp.options.challenge, ORIGIN)
        const clientData = Buffer.from(JSON.stringify({ type: "webauthn.get", origin: ORIGIN })).toString("base64url")
        return Promise.resolve({ ...signed, response: { ...signed.response, clientDataJSON: clientData } })
      }],
      // A challenge the console issued for registering a passkey, not for a decision.
      ["step_up_invalid", why("its challenge was not issued for a decision"), async () => assert(key, (await registrationOptions(h.db, checker, rp)).challenge, ORIGIN)],
      // The checker signs the challenge step-up gave another trader for the same decision.
      ["step_up_foreign_credential", why("its challenge was issued to someone else"), async (p) => {
        const theirs = problemOf(await approveRequest(h, otherTrader, p.id, {}, { heldQuotes, stepUp: on() }).catch((e: unknown) => e))
        return assert(key, (theirs.meta?.step_up as { options: { challenge: string } }).options.challenge, ORIGIN)
      }],
      ["step_up_foreign_credential", why("its credential is another person's passkey"), (p) => Promise.resolve(assert(keys.get(otherTrader.email)!, p.stepUp.options.challenge, ORIGIN))],
      ["step_up_invalid", why("its credential is not a registered passkey"), (p) => Promise.resolve(assert(stranger, p.stepUp.options.challenge, ORIGIN))],
      // The checker's credential id, signed by another key.
      ["step_up_invalid", why("its signature does not verify"), (p) => Promise.resolve(assert({ ...key, privateKey: stranger.privateKey }, p.stepUp.options.challenge, ORIGIN))],
      ["step_up_not_user_verified", why("the authenticator did not verify the user (PIN or biometrics)"), (p) => Promise.resolve(assert(key, p.stepUp.options.challenge, ORIGIN, { userVerified: false }))],
    ]
    for (const [code, detail, make] of cases) {
      const p = await pending("210.00")
      const outcome = await approveRequest(h, checker, p.id, {}, { heldQuotes, stepUp: on(await make(p)) }).catch((e: unknown) => e)
      expect(problemOf(outcome), detail).toMatchObject({ status: 403, code, detail })
      await unchanged(p.id, p.refId)
      expect(await listDecisions(h.db, { requestId: p.id, limit: 1 }), detail).toMatchObject([{ outcome: code, staff_email: checker.email }])
    }
    // The passkey's counter did not move on any of them: the next honest assertion is accepted.
    const p = await pending("211.00")
    expect(await approveRequest(h, checker, p.id, {}, { heldQuotes, stepUp: on(assert(key, p.stepUp.options.challenge, ORIGIN)) })).toMatchObject({ state: "APPROVED" })
  })

  it("an assertion that does not verify is refused with the library's reason, cut to 160 characters", async () => {
    const key = keys.get(checker.email)!
    const origin = `http://${"a".repeat(300)}.localhost:3000`
    const p = await pending("212.00")
    const outcome = problemOf(await approveRequest(h, checker, p.id, {}, { heldQuotes, stepUp: on(assert(key, p.stepUp.options.challenge, origin)) }).catch((e: unknown) => e))
    const reason = `Unexpected authentication response origin "${origin}", expected "${ORIGIN}"`.slice(0, 160)
    expect(outcome).toMatchObject({ status: 403, code: "step_up_invalid", detail: `The passkey assertion is refused: it does not verify (${reason}). Nothing changed.` })
    await unchanged(p.id, p.refId)
  })

  it("an assertion older than the passkey's last use (its counter behind) is refused, and so is one whose passkey another decision used meanwhile", async () => {
    const key = keys.get(checker.email)!
    const older = await pending("213.00")
    const newer = await pending("214.00")
    const early = assert(key, older.stepUp.options.challenge, ORIGIN)
    expect(await approveRequest(h, checker, newer.id, {}, { heldQuotes, stepUp: on(assert(key, newer.stepUp.options.challenge, ORIGIN)) })).toMatchObject({ state: "APPROVED" })
    const behind = problemOf(await approveRequest(h, checker, older.id, {}, { heldQuotes, stepUp: on(early) }).catch((e: unknown) => e))
    expect(behind).toMatchObject({ status: 403, code: "step_up_invalid" })
    expect(behind.detail).toContain("counter")
    await unchanged(older.id, older.refId)
    // Another instance's decision with the same passkey lands between this one's check and its use of the counter.
    const p = await pending("215.00")
    const assertion = assert(key, p.stepUp.options.challenge, ORIGIN)
    const update = h.db.update.bind(h.db)
    const spy = vi.spyOn(h.db, "update").mockImplementation(((table: object) => {
      if (table === consolePasskeys) {
        spy.mockRestore()
        return {
          set: (values: object) => ({
            where: (where: SQL | undefined) => ({
              returning: async () => {
                await update(consolePasskeys).set({ counter: key.counter + 1 }).where(eq(consolePasskeys.id, key.id))
                return update(consolePasskeys).set(values).where(where).returning({ id: consolePasskeys.id })
              },
            }),
          }),
        }
      }
      return update(table as typeof consolePasskeys)
    }) as typeof h.db.update)
    try {
      const raced = await approveRequest(h, checker, p.id, {}, { heldQuotes, stepUp: on(assertion) }).catch((e: unknown) => e)
      expect(problemOf(raced)).toMatchObject({ status: 403, code: "step_up_replayed", detail: "The passkey assertion is refused: its passkey was used meanwhile (counter). Nothing changed." })
    } finally {
      spy.mockRestore()
    }
    await unchanged(p.id, p.refId)
    key.counter += 1
  })

  it("step-up asks for the checker's passkeys by id within 2 minutes; someone with none is told where to register one", async () => {
    const key = keys.get(checker.email)!
    const { stepUp } = await pending("216.00")
    expect(stepUp.options).toMatchObject({ timeout: 120_000, allowCredentials: [{ id: key.id, type: "public-key", transports: ["internal"] }] })
    const asked = problemOf(await approveRequest(h, checker, (await pending("217.00")).id, {}, { heldQuotes, stepUp: on() }).catch((e: unknown) => e))
    expect(asked).toMatchObject({ detail: "Approving this request needs your passkey: sign the challenge (2 minutes) and send the assertion as step_up.", meta: { step_up: { passkeys: 1 } } })
    const keyless: Staff = { email: "keyless@example.com", role: "admin" }
    const { submission } = await ask("218.00")
    if (submission.kind !== "request") throw new Error("expected a request")
    const none = problemOf(await approveRequest(h, keyless, submission.request.id, {}, { heldQuotes, stepUp: on() }).catch((e: unknown) => e))
    expect(none).toMatchObject({
      status: 403,
      code: "step_up_required",
      detail: "Approving this request needs your passkey, and you have none: register one on your account page (/account).",
      meta: { step_up: { passkeys: 0, options: { allowCredentials: [] } } },
    })
  })

  it("a checker signed in with capitals in their email steps up with their passkey as anyone else", async () => {
    const key = keys.get(checker.email)!
    const shouting: Staff = { email: checker.email.toUpperCase(), role: "admin" }
    const p = await pending("219.00", "approve", shouting)
    expect(p.stepUp.options).toMatchObject({ allowCredentials: [{ id: key.id }] })
    const approved = await approveRequest(h, shouting, p.id, {}, { heldQuotes, stepUp: on(assert(key, p.stepUp.options.challenge, ORIGIN)) })
    expect(approved).toMatchObject({ state: "APPROVED", placement: "PLACED" })
    expect(await executionsWithRef(p.refId)).toHaveLength(1)
  })

  it("reject needs step-up too, over its own digest: an approve's assertion does not reject", async () => {
    const key = keys.get(checker.email)!
    const { id, refId, stepUp } = await pending("207.00", "reject")
    expect(stepUp.authorises).toMatchObject({ action: "reject", requests: [{ id, amount: "207.00" }] })
    // An assertion for rejecting another request does not reject this one.
    const otherReject = await pending("207.50", "reject")
    const elsewhere = await rejectRequest(h.db, checker, id, { reason: "no" }, { stepUp: on(assert(key, otherReject.stepUp.options.challenge, ORIGIN)) }).catch((e: unknown) => e)
    expect(problemOf(elsewhere)).toMatchObject({ status: 403, code: "step_up_digest_mismatch" })
    await unchanged(id, refId)
    const forApprove = await pending("208.00")
    const wrong = await rejectRequest(h.db, checker, id, { reason: "no" }, { stepUp: on(assert(key, forApprove.stepUp.options.challenge, ORIGIN)) }).catch((e: unknown) => e)
    expect(problemOf(wrong)).toMatchObject({ code: "step_up_digest_mismatch" })
    await unchanged(id, refId)
    const again = await pending("209.00", "reject")
    const rejected = await rejectRequest(h.db, checker, again.id, { reason: "too large" }, { stepUp: on(assert(key, again.stepUp.options.challenge, ORIGIN)) })
    expect(rejected).toMatchObject({ state: "REJECTED", reason: "too large" })
    expect(await listDecisions(h.db, { requestId: again.id, limit: 1 })).toMatchObject([{ action: "reject", outcome: "done", credential_id: key.id, user_verified: true, digest: again.stepUp.digest }])
  })

  it("with step-up off, an assertion sent anyway is not checked: the approval and its trail name no passkey", async () => {
    const key = keys.get(checker.email)!
    const { submission, refId } = await ask("220.00")
    if (submission.kind !== "request") throw new Error("expected a request")
    // The route passes the body's step_up whatever STEP_UP says; this one answers no challenge at all.
    const sent = assert(key, randomBytes(32).toString("base64url"), ORIGIN)
    const approved = await approveRequest(h, checker, submission.request.id, {}, { heldQuotes, stepUp: { mode: "off", rp, assertion: sent } })
    expect(approved).toMatchObject({ state: "APPROVED", placement: "PLACED", approvals: { given: [{ email: checker.email, credential_id: null, user_verified: null }] } })
    expect(await executionsWithRef(refId)).toHaveLength(1)
    const [done] = await listDecisions(h.db, { requestId: submission.request.id, limit: 1 })
    expect(done).toMatchObject({ action: "approve", outcome: "done", credential_id: null, user_verified: null })
    expect(done?.digest).toMatch(/^[0-9a-f]{64}$/)
  })
})

describe.each(testDrivers())("step-up on a console where no one has saved a policy, on %s", (driver) => {
  let h: ConsoleHarness
  beforeAll(async () => {
    h = await createConsoleHarness({ driver })
  })
  afterAll(async () => {
    await h?.close()
  })

  it("a request over the default threshold is approved with a passkey; what it authorises names policy version 0, the defaults", async () => {
    const maker: Staff = { email: "fresh-maker@example.com", role: "trader" }
    await signsInBySso(h.db, maker)
    const profileId = (await h.upstream.listProfiles()).items[0]!.id
    const refId = randomUUID()
    const asked = await submitConversion(h, maker, { profile_id: profileId, amount: "10000.00", source_asset: "USD", target_asset: "PYUSD", ref_id: refId })
    if (asked.kind !== "request") throw new Error("expected a request")
    expect(asked.request.policy_version).toBe(0)
    const options = await registrationOptions(h.db, checker, rp)
    const made = register(options, ORIGIN)
    await registerPasskey(h.db, checker, rp, { name: "laptop", response: made.response })
    const heldQuotes = () => h.upstream.listQuotes([])
    const required = problemOf(await approveRequest(h, checker, asked.request.id, {}, { heldQuotes, stepUp: { mode: "webauthn", rp } }).catch((e: unknown) => e))
    const stepUp = required.meta?.step_up as { options: { challenge: string }; authorises: Record<string, unknown> }
    expect(stepUp.authorises).toMatchObject({ action: "approve", policy_version: 0, requests: [{ id: asked.request.id, amount: "10000.00", judged_under: 0 }] })
    const approved = await approveRequest(h, checker, asked.request.id, {}, { heldQuotes, stepUp: { mode: "webauthn", rp, assertion: assert(made.credential, stepUp.options.challenge, ORIGIN) } })
    expect(approved).toMatchObject({ state: "APPROVED", placement: "PLACED" })
    expect((await h.upstream.listConversions({ ref_id: refId })).items).toHaveLength(1)
  })
})

describe("the step-up prompt names what needs the passkey", () => {
  it("an order, a session's end, a policy change, one request or several, a rejection", () => {
    expect(whatNeedsIt({ action: "place_order" })).toBe("This order")
    expect(whatNeedsIt({ action: "end_session" })).toBe("Ending this person's session")
    expect(whatNeedsIt({ action: "policy_change" })).toBe("This policy change")
    expect(whatNeedsIt({ action: "reject_policy_change" })).toBe("Rejecting this policy change")
    expect(whatNeedsIt({ action: "approve", requests: [{}] })).toBe("Approving this request")
    expect(whatNeedsIt({ action: "approve", requests: [{}, {}, {}] })).toBe("Approving these 3 requests")
    expect(whatNeedsIt({ action: "approve", requests: [{}, {}] })).toBe("Approving these 2 requests")
    expect(whatNeedsIt({ action: "approve" })).toBe("Approving this request")
    expect(whatNeedsIt({ action: "approve", requests: Array.from({ length: 1200 }, () => ({})) })).toBe("Approving these 1,200 requests")
    expect(whatNeedsIt({ action: "reject", requests: [{}] })).toBe("Rejecting this request")
  })

  it("anything else, or nothing, is \"This decision\"", () => {
    expect(whatNeedsIt({ action: "cancel_everything" })).toBe("This decision")
    expect(whatNeedsIt(null)).toBe("This decision")
    expect(whatNeedsIt(undefined)).toBe("This decision")
  })
})
