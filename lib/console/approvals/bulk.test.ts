import { beforeAll, describe, expect, it } from "vitest"
import { registerPasskey, registrationOptions } from "@/lib/auth/passkeys"
import type { RelyingParty } from "@/lib/auth/webauthn"
import { approveMany } from "@/lib/console/approvals/bulk"
import { listDecisions } from "@/lib/console/approvals/decision-trail"
import { getApproval } from "@/lib/console/approvals/reads"
import type { StepUp } from "@/lib/console/approvals/step-up"
import { ApprovalsFixture, checker, problemOf } from "@/test/approvals"
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
    expect(asked).toMatchObject({ status: 403, code: "step_up_required" })
    const stepUp = asked.meta?.step_up as { options: { challenge: string }; digest: string; authorises: { requests: { id: string }[] } }
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
    expect(lists).toMatchObject([{ credential_id: key.id, digest: stepUp.digest }])
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
})
