import { randomUUID } from "node:crypto"
import { beforeAll, describe, expect, it } from "vitest"
import { registerPasskey, registrationOptions } from "@/lib/auth/passkeys"
import type { Staff } from "@/lib/auth/roles"
import type { RelyingParty } from "@/lib/auth/webauthn"
import { approveMany } from "@/lib/console/approvals/bulk"
import { listDecisions } from "@/lib/console/approvals/decision-trail"
import { rejectRequest } from "@/lib/console/approvals/decisions"
import { getApproval } from "@/lib/console/approvals/reads"
import type { StepUp } from "@/lib/console/approvals/step-up"
import { readPolicy, savePolicy } from "@/lib/console/policy"
import { ApprovalsFixture, checker, otherTrader, problemOf, signsInBySso } from "@/test/approvals"
import { type SoftCredential, assert, register } from "@/test/authenticator"
import { testDrivers } from "@/test/db"

const ORIGIN = "http://localhost:3000"
const rp: RelyingParty = { id: "localhost", name: "Treasury console", origin: ORIGIN }

/** Bulk approve: one assertion over the digest of the whole list, then each request approved on its own. */
describe.each(testDrivers())("bulk approve with one passkey assertion, on %s", (driver) => {
  const f = new ApprovalsFixture(driver)
  const { heldQuotes, executionsWithRef, ask } = f
  let key: SoftCredential

  beforeAll(async () => {
    const options = await registrationOptions(f.h.db, checker, rp)
    const made = register(options, ORIGIN)
    await registerPasskey(f.h.db, checker, rp, { name: "key", response: made.response })
    key = made.credential
  })

  const on = (assertion?: ReturnType<typeof assert>): StepUp => ({ mode: "webauthn", rp, assertion: assertion })

  async function three() {
    const asked = await Promise.all(["210.00", "211.00", "212.00"].map((amount) => ask(amount)))
    return asked.map(({ submission, refId }) => {
      if (submission.kind !== "request") throw new Error("expected a request")
      return { id: submission.request.id, refId }
    })
  }

  it("three requests, one assertion over the list's digest: all three placed once, each on the trail with that credential and digest", async () => {
    const requests = await three()
    const ids = requests.map((r) => r.id)
    const asked = problemOf(await approveMany(f.h, checker, ids, {}, { heldQuotes, stepUp: on() }).catch((e: unknown) => e))
    expect(asked).toMatchObject({ status: 403, code: "step_up_required", detail: "Approving these 3 requests needs your passkey: sign the challenge (2 minutes) and send the assertion as step_up." })
    const stepUp = asked.meta?.step_up as { options: { challenge: string }; digest: string; authorises: { action: string; requests: { id: string }[] } }
    expect(stepUp.authorises.action).toBe("approve")
    expect(stepUp.authorises.requests.map((r) => r.id).sort()).toEqual([...ids].sort())
    for (const { id } of requests) expect((await getApproval(f.h.db, id)).state).toBe("PENDING")

    const done = await approveMany(f.h, checker, ids, { comment: "batch" }, { heldQuotes, stepUp: on(assert(key, stepUp.options.challenge, ORIGIN)) })
    expect(done.items.map((i) => ("request" in i ? i.request.state : i.problem.code))).toEqual(["APPROVED", "APPROVED", "APPROVED"])
    for (const { refId } of requests) expect(await executionsWithRef(refId)).toHaveLength(1)
    for (const id of ids) {
      const [entry] = await listDecisions(f.h.db, { requestId: id, limit: 1 })
      expect(entry).toMatchObject({ outcome: "done", credential_id: key.id, user_verified: true, digest: stepUp.digest })
    }
    const lists = (await listDecisions(f.h.db, { limit: 20 })).filter((d) => d.request_ids.length === 3 && d.outcome === "done")
    expect(lists).toMatchObject([{ action: "approve", staff_email: checker.email, credential_id: key.id, digest: stepUp.digest }])
  })

  it("an assertion over a shorter list does not approve a longer one; a list with the checker's own request is refused whole; nothing changes", async () => {
    const requests = await three()
    const ids = requests.map((r) => r.id)
    const two = problemOf(await approveMany(f.h, checker, ids.slice(0, 2), {}, { heldQuotes, stepUp: on() }).catch((e: unknown) => e))
    const challenge = (two.meta?.step_up as { options: { challenge: string } }).options.challenge
    const wrong = await approveMany(f.h, checker, ids, {}, { heldQuotes, stepUp: on(assert(key, challenge, ORIGIN)) }).catch((e: unknown) => e)
    expect(problemOf(wrong)).toMatchObject({ status: 403, code: "step_up_digest_mismatch" })
    const mine = await ask("213.00", checker)
    if (mine.submission.kind !== "request") throw new Error("expected a request")
    const own = await approveMany(f.h, checker, [...ids, mine.submission.request.id], {}, { heldQuotes, stepUp: on() }).catch((e: unknown) => e)
    expect(problemOf(own)).toMatchObject({ status: 403, code: "not_allowed" })
    for (const { id, refId } of requests) {
      expect((await getApproval(f.h.db, id)).state).toBe("PENDING")
      expect(await executionsWithRef(refId)).toEqual([])
    }
  })

  it("the list's order does not matter: an assertion over the list approves it in any order", async () => {
    const requests = await three()
    const ids = requests.map((r) => r.id)
    const asked = problemOf(await approveMany(f.h, checker, ids, {}, { heldQuotes, stepUp: on() }).catch((e: unknown) => e))
    const challenge = (asked.meta?.step_up as { options: { challenge: string } }).options.challenge
    const reversed = [...ids].reverse()
    const done = await approveMany(f.h, checker, reversed, {}, { heldQuotes, stepUp: on(assert(key, challenge, ORIGIN)) })
    expect(done.items.map((i) => ["request" in i ? i.request.state : i.problem.code, i.id])).toEqual(reversed.map((id) => ["APPROVED", id]))
    for (const { refId } of requests) expect(await executionsWithRef(refId)).toHaveLength(1)
  })

  it("a list holding a request no longer pending, or one voided, is refused whole with its id; nothing changes", async () => {
    const requests = await three()
    const ids = requests.map((r) => r.id)
    await rejectRequest(f.h.db, checker, ids[1]!, { reason: "no" })
    const decided = await approveMany(f.h, otherTrader, ids, {}, { heldQuotes }).catch((e: unknown) => e)
    expect(problemOf(decided)).toMatchObject({ status: 409, code: "state_conflict", meta: { state: "REJECTED" } })
    // A maker who lost access: their request is voided, and the list naming it is refused.
    const leaving: Staff = { email: `bulk-leaving-${randomUUID().slice(0, 6)}@example.com`, role: "trader" }
    await signsInBySso(f.h.db, leaving)
    const theirs = await ask("214.00", leaving)
    if (theirs.submission.kind !== "request") throw new Error("expected a request")
    await signsInBySso(f.h.db, { ...leaving, role: "viewer" })
    const voidedId = theirs.submission.request.id
    const voided = await approveMany(f.h, otherTrader, [ids[0]!, voidedId, ids[2]!], {}, { heldQuotes }).catch((e: unknown) => e)
    expect(problemOf(voided)).toMatchObject({ status: 409, code: "state_conflict", detail: `Request ${voidedId} was voided; nothing was sent.`, meta: { state: "VOIDED", id: voidedId } })
    for (const { id, refId } of [requests[0]!, requests[2]!, { id: voidedId, refId: theirs.refId }]) {
      expect((await getApproval(f.h.db, id)).state).toBe(id === voidedId ? "VOIDED" : "PENDING")
      expect(await executionsWithRef(refId)).toEqual([])
    }
  })

  it("with step-up off, a request refused on its own (its maker's limit lowered) is answered with its problem, and the others are placed", async () => {
    const requests = await three()
    const ids = requests.map((r) => r.id)
    const before = (await readPolicy(f.h.db)).policy
    await savePolicy(f.h.db, checker, { ...before, staff_limits: { ...before.staff_limits, [f.me.email]: { per_order: { USD: "211.00" }, per_day: { USD: "2500.00" } } } })
    try {
      const done = await approveMany(f.h, otherTrader, ids, {}, { heldQuotes })
      expect(done.items.map((i) => ["request" in i ? i.request.state : i.problem.code, i.id])).toEqual([
        ["APPROVED", ids[0]],
        ["APPROVED", ids[1]],
        ["limit_exceeded", ids[2]],
      ])
      expect((await getApproval(f.h.db, ids[2]!)).state).toBe("PENDING")
      expect(await executionsWithRef(requests[2]!.refId)).toEqual([])
      for (const { refId } of requests.slice(0, 2)) expect(await executionsWithRef(refId)).toHaveLength(1)
      // On the trail with the list's digest and no credential.
      const [entry] = await listDecisions(f.h.db, { requestId: ids[0]!, limit: 1 })
      expect(entry).toMatchObject({ outcome: "done", credential_id: null, digest: expect.stringMatching(/^[0-9a-f]{64}$/) as string })
    } finally {
      await savePolicy(f.h.db, checker, before)
    }
  })

  it("an error that is no refusal (the quotes cannot be read) stops the list with that error; nothing is placed", async () => {
    const requests = await three()
    const down = new Error("quotes down")
    const failed = await approveMany(f.h, otherTrader, requests.map((r) => r.id), {}, { heldQuotes: () => Promise.reject(down) }).catch((e: unknown) => e)
    expect(failed).toBe(down)
    for (const { id, refId } of requests) {
      expect((await getApproval(f.h.db, id)).state).toBe("PENDING")
      expect(await executionsWithRef(refId)).toEqual([])
    }
  })
})
