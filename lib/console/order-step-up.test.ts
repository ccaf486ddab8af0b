import { randomUUID } from "node:crypto"
import { sql } from "drizzle-orm"
import { beforeAll, describe, expect, it } from "vitest"
import { registerPasskey, registrationOptions } from "@/lib/auth/passkeys"
import type { Staff } from "@/lib/auth/roles"
import type { RelyingParty } from "@/lib/auth/webauthn"
import type { StepUp } from "@/lib/console/approvals/step-up"
import { savePolicy } from "@/lib/console/policy"
import { submitConversion, submitQuoteExecution } from "@/lib/console/submission"
import { consoleIntents } from "@/lib/db/schema"
import { ApprovalsFixture, TEST_POLICY, checker, problemOf } from "@/test/approvals"
import { type SoftCredential, assert, register } from "@/test/authenticator"
import { testDrivers } from "@/test/db"

const ORIGIN = "http://localhost:3000"
const rp: RelyingParty = { id: "localhost", name: "Treasury console", origin: ORIGIN }

/**
 * An order at or over the policy's step_up_over needs the maker's fresh passkey (STEP_UP=webauthn),
 * bound to the digest of exactly that order: without it 403 step_up_required, nothing admitted.
 */
describe.each(testDrivers())("step-up for large orders, on %s", (driver) => {
  const f = new ApprovalsFixture(driver)
  const on = (assertion?: ReturnType<typeof assert>): StepUp => ({ mode: "webauthn", rp, assertion })
  beforeAll(async () => {
    await savePolicy(f.h.db, checker, { ...TEST_POLICY, step_up_over: { USD: "300.00" } })
  })

  async function enrol(who: Staff): Promise<SoftCredential> {
    const options = await registrationOptions(f.h.db, who, rp)
    const { credential, response } = register(options, ORIGIN)
    await registerPasskey(f.h.db, who, rp, { name: "laptop", response })
    return credential
  }
  const convert = (amount: string, refId: string, stepUp: StepUp) =>
    submitConversion(f.h, f.me, { profile_id: f.profileId, amount, source_asset: "USD", target_asset: "USDG", ref_id: refId }, { stepUp })

  it("under the size no passkey is asked; at it, 403 step_up_required bound to the order, nothing admitted, the refusal on the audit trail", async () => {
    expect((await convert("50.00", randomUUID(), on())).kind).toBe("placed")
    const refId = randomUUID()
    const asked = await convert("300.00", refId, on()).catch((e: unknown) => e)
    expect(problemOf(asked)).toMatchObject({
      status: 403,
      code: "step_up_required",
      meta: { step_up: { authorises: { action: "place_order", operation: "create_conversion", ref_id: refId, amount: "300.00", currency: "USD" } } },
    })
    // On the audit trail as a refusal; nothing admitted (no intent waits or is sent under the ref_id).
    const rows = await f.h.db.select().from(consoleIntents).where(sql`${consoleIntents.request}->>'ref_id' = ${refId}`)
    expect(rows.map((r) => [r.state, r.problem?.code])).toEqual([["REFUSED", "step_up_required"]])
  })

  it("with the maker's passkey over that challenge the order goes on (here: a request, over the approval threshold); a replay of its ref_id asks nothing", async () => {
    const key = await enrol(f.me)
    const refId = randomUUID()
    const asked = problemOf(await convert("400.00", refId, on()).catch((e: unknown) => e))
    const challenge = (asked.meta?.step_up as { options: { challenge: string } }).options.challenge
    // Signed for this order, sent for another amount: refused (digest), nothing admitted.
    const other = await convert("401.00", refId, on(assert(key, challenge, ORIGIN))).catch((e: unknown) => e)
    expect(problemOf(other)).toMatchObject({ status: 403, code: "step_up_digest_mismatch" })
    const again = problemOf(await convert("400.00", refId, on()).catch((e: unknown) => e))
    const fresh = (again.meta?.step_up as { options: { challenge: string } }).options.challenge
    const placed = await convert("400.00", refId, on(assert(key, fresh, ORIGIN)))
    expect(placed.kind).toBe("request")
    expect((await convert("400.00", refId, on())).kind).toBe("request")
  })

  it("an execution's challenge names its market and side, and its assertion may come in the body as the desk sends it (step_up)", async () => {
    const key = await enrol(f.me)
    const quote = await f.heldQuote("SELL", "ETHUSD")
    const body = { quote_id: quote.id, quote_amount: "300.00", ref_id: randomUUID(), reviewed_quote: { market: quote.market, side: quote.side, price: quote.price } }
    const execute = (extra: { step_up?: ReturnType<typeof assert> } = {}) =>
      submitQuoteExecution(f.h, f.me, f.profileId, { ...body, ...extra }, { heldQuotes: f.heldQuotes, stepUp: on() })
    const asked = problemOf(await execute().catch((e: unknown) => e))
    expect(asked).toMatchObject({
      status: 403,
      code: "step_up_required",
      meta: { step_up: { authorises: { action: "place_order", operation: "create_execution", market: "ETHUSD", side: "SELL", amount: "300.00", currency: "USD" } } },
    })
    const challenge = (asked.meta?.step_up as { options: { challenge: string } }).options.challenge
    const placed = await execute({ step_up: assert(key, challenge, ORIGIN) })
    expect(placed).toMatchObject({ kind: "request", request: { ref_id: body.ref_id, market: "ETHUSD", side: "SELL" } })
  })
})
