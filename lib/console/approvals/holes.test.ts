import { randomUUID } from "node:crypto"
import { eq } from "drizzle-orm"
import { beforeEach, describe, expect, it } from "vitest"
import type { Role, Staff } from "@/lib/auth/roles"
import { recordAuthEvent } from "@/lib/auth/sessions"
import { listDecisions } from "@/lib/console/approvals/decision-trail"
import { approveRequest } from "@/lib/console/approvals/decisions"
import { getApproval, listApprovals } from "@/lib/console/approvals/reads"
import { limitPrice } from "@/lib/console/approvals/state"
import { listAudit } from "@/lib/console/audit"
import { readPolicy, savePolicy } from "@/lib/console/policy"
import { rememberServed } from "@/lib/console/served-quotes"
import { submitConversion, submitQuoteExecution } from "@/lib/console/submission"
import { consoleApprovals, consoleIntents } from "@/lib/db/schema"
import { toDecimal } from "@/lib/money"
import type { Policy } from "@/lib/schemas/approvals"
import { ApprovalsFixture, checker, otherTrader, problemOf, signsInBySso } from "@/test/approvals"
import type { ConsoleHarness } from "@/test/console"
import { testDrivers } from "@/test/db"

/**
 * Issue 33's three holes, replayed as the issue writes them: each now ends refused or
 * VOIDED, and nothing reaches the service.
 */
describe.each(testDrivers())("the three holes of issue 33, on %s", (driver) => {
  const f = new ApprovalsFixture(driver)
  const { heldQuotes, heldQuote, executionsWithRef } = f
  let h: ConsoleHarness
  let profileId: string
  let me: Staff
  beforeEach(() => {
    ;({ h, profileId, me } = f)
  })

  async function withStaffLimits<T>(limits: Record<string, { per_order: string; per_day: string }>, run: (set: (l: typeof limits) => Promise<void>) => Promise<T>): Promise<T> {
    const before = (await readPolicy(h.db)).policy
    const set = async (l: typeof limits) => {
      const staff: Policy["staff_limits"] = {}
      for (const [email, { per_order, per_day }] of Object.entries(l)) staff[email] = { per_order: { USD: per_order }, per_day: { USD: per_day } }
      await savePolicy(h.db, checker, { ...before, staff_limits: { ...before.staff_limits, ...staff } })
    }
    await set(limits)
    try {
      return await run(set)
    } finally {
      await savePolicy(h.db, checker, before)
    }
  }

  const conversion = (amount: string) => ({ profile_id: profileId, amount, source_asset: "USD" as const, target_asset: "PYUSD" as const, ref_id: randomUUID() })

  async function conversionsWithRef(refId: string) {
    return (await h.upstream.listConversions({ ref_id: refId })).items
  }

  it("1. limits lowered after the request: approving a 20,000 USD conversion over the maker's new 15,000 is refused, nothing placed", async () => {
    await withStaffLimits({ [me.email]: { per_order: "50000.00", per_day: "250000.00" } }, async (setLimits) => {
      const body = conversion("20000.00")
      const asked = await submitConversion(h, me, body)
      if (asked.kind !== "request") throw new Error("expected a request")
      // An admin lowers the maker's limits to 15,000 per order and per day, then approves.
      await setLimits({ [me.email]: { per_order: "15000.00", per_day: "15000.00" } })
      const approval = await approveRequest(h, checker, asked.request.id, {}, { heldQuotes }).catch((e: unknown) => e)
      expect(problemOf(approval)).toMatchObject({
        status: 422,
        code: "limit_exceeded",
        meta: { limit: "per_order", order_amount: "20000.00", per_order_limit: "15000.00", used_today: "0.00" },
      })
      expect(problemOf(approval).detail).toBe(`This order of 20,000.00 USD is over ${me.email}'s limit per order of 15,000.00 USD.`)
      // Nothing changed: still PENDING, its intent still waiting, nothing at the service.
      expect(await getApproval(h.db, asked.request.id)).toMatchObject({ state: "PENDING", placement: "NOT_SENT", checker: null })
      const [intent] = await h.db.select().from(consoleIntents).where(eq(consoleIntents.id, asked.request.id))
      expect(intent).toMatchObject({ state: "AWAITING_APPROVAL", recordId: null })
      expect(await conversionsWithRef(body.ref_id)).toEqual([])
      // The refused attempt is on the audit trail like every other: who, on what, why.
      expect(await listDecisions(h.db, { requestId: asked.request.id, limit: 5 })).toMatchObject([
        { action: "approve", staff_email: checker.email, outcome: "limit_exceeded", request_ids: [asked.request.id] },
      ])
      // A new 20,000 request right after gets 422, as before.
      const fresh = await submitConversion(h, me, conversion("20000.00")).catch((e: unknown) => e)
      expect(problemOf(fresh)).toMatchObject({ status: 422, code: "limit_exceeded", meta: { limit: "per_order" } })
      // With the limits raised again, the same request is approved and placed once.
      await setLimits({ [me.email]: { per_order: "50000.00", per_day: "250000.00" } })
      const placed = await approveRequest(h, checker, asked.request.id, {}, { heldQuotes })
      expect(placed).toMatchObject({ state: "APPROVED" })
    })
  })

  it("1. the day's limit lowered: the request itself is not counted twice, the maker's other orders are", async () => {
    await withStaffLimits({ [me.email]: { per_order: "50000.00", per_day: "250000.00" } }, async (setLimits) => {
      const first = await submitConversion(h, me, conversion("12000.00"))
      const second = await submitConversion(h, me, conversion("2000.00"))
      if (first.kind !== "request" || second.kind !== "request") throw new Error("expected two requests")
      await setLimits({ [me.email]: { per_order: "50000.00", per_day: "13999.99" } })
      const over = await approveRequest(h, checker, first.request.id, {}, { heldQuotes }).catch((e: unknown) => e)
      expect(problemOf(over)).toMatchObject({ status: 422, code: "limit_exceeded", meta: { limit: "per_day", used_today: "2000.00", order_amount: "12000.00" } })
      expect(problemOf(over).detail).toContain(`${me.email}'s daily limit is 13,999.99 USD`)
      expect((await getApproval(h.db, first.request.id)).state).toBe("PENDING")
      // Exactly at the limit it fits.
      await setLimits({ [me.email]: { per_order: "50000.00", per_day: "14000.00" } })
      expect(await approveRequest(h, checker, first.request.id, {}, { heldQuotes })).toMatchObject({ state: "APPROVED" })
    })
  })

  it("2. the console restarted with one maker removed and the other demoted to viewer: both requests end VOIDED with the reason, never placed", async () => {
    // Two traders in the staff directory, each asking for 10,000 USD.
    const removed: Staff = { email: "trader@example.com", role: "trader" }
    const demoted: Staff = { email: "admin@example.com", role: "admin" }
    let directory: Record<string, Role> = { [removed.email]: "trader", [demoted.email]: "admin" }
    const lookup = (email: string) => directory[email.toLowerCase()] ?? null
    await withStaffLimits({ [removed.email]: { per_order: "50000.00", per_day: "250000.00" }, [demoted.email]: { per_order: "50000.00", per_day: "250000.00" } }, async () => {
      const asks = [await submitConversion(h, removed, conversion("10000.00")), await submitConversion(h, demoted, conversion("10000.00"))]
      const ids = asks.map((a) => {
        if (a.kind !== "request") throw new Error("expected a request")
        return a.request.id
      })
      // The restart: one removed from CONSOLE_USERS, the other now a viewer.
      directory = { [demoted.email]: "viewer" }
      const first = await approveRequest(h, otherTrader, ids[0]!, {}, { heldQuotes, directory: lookup }).catch((e: unknown) => e)
      expect(problemOf(first)).toMatchObject({ status: 409, code: "state_conflict", meta: { state: "VOIDED", reason: "the maker is no longer on the staff" } })
      const second = await approveRequest(h, otherTrader, ids[1]!, {}, { heldQuotes, directory: lookup }).catch((e: unknown) => e)
      expect(problemOf(second)).toMatchObject({
        status: 409,
        code: "state_conflict",
        meta: { state: "VOIDED", reason: "the maker's role is now viewer, and placing an order needs trader or admin" },
      })
      for (const id of ids) {
        const [intent] = await h.db.select().from(consoleIntents).where(eq(consoleIntents.id, id))
        expect(intent).toMatchObject({ state: "FAILED", recordId: null, problem: expect.objectContaining({ code: "request_voided" }) as unknown })
        expect(await conversionsWithRef(intent!.refId!)).toEqual([])
      }
      // On the approvals list and the audit trail as VOIDED, with the reason.
      const list = await listApprovals(h.db, { state: "VOIDED", limit: 50 }, new Date(), checker)
      expect(list.items.filter((r) => ids.includes(r.id)).map((r) => [r.maker.email, r.state, r.placement, r.reason])).toEqual(
        expect.arrayContaining([
          [removed.email, "VOIDED", "NOT_SENT", "the maker is no longer on the staff"],
          [demoted.email, "VOIDED", "NOT_SENT", "the maker's role is now viewer, and placing an order needs trader or admin"],
        ]),
      )
      const trail = await listAudit(h.db, { staff: removed.email, limit: 5 })
      expect(trail.items.find((e) => e.id === ids[0])).toMatchObject({ state: "FAILED", approval_state: "VOIDED" })
    })
  })

  it("2. a single sign-on maker whose provider then refuses them, or gives them viewer, has their requests voided when the list is next read", async () => {
    const gone: Staff = { email: `sso-gone-${randomUUID().slice(0, 6)}@example.com`, role: "trader" }
    const viewer: Staff = { email: `sso-viewer-${randomUUID().slice(0, 6)}@example.com`, role: "trader" }
    const stays: Staff = { email: `sso-stays-${randomUUID().slice(0, 6)}@example.com`, role: "trader" }
    for (const who of [gone, viewer, stays]) await signsInBySso(h.db, who)
    const ids: string[] = []
    for (const who of [gone, viewer, stays]) {
      const asked = await submitConversion(h, who, conversion("150.00"))
      if (asked.kind !== "request") throw new Error("expected a request")
      ids.push(asked.request.id)
    }
    await recordAuthEvent(h.db, { kind: "sign_in_failed", email: gone.email, detail: { provider: "oidc", subject: "x", reason: "no console role" } })
    await signsInBySso(h.db, { email: viewer.email, role: "viewer" })
    const list = await listApprovals(h.db, { limit: 200 }, new Date(), checker)
    const states = new Map(list.items.map((r) => [r.id, [r.state, r.reason]]))
    expect(ids.map((id) => states.get(id))).toEqual([
      ["VOIDED", "the maker is no longer on the staff"],
      ["VOIDED", "the maker's role is now viewer, and placing an order needs trader or admin"],
      ["PENDING", null],
    ])
    // Voided once, by a conditional update: a later read or approval changes nothing.
    const [row] = await h.db.select().from(consoleApprovals).where(eq(consoleApprovals.intentId, ids[0]!))
    const again = await approveRequest(h, checker, ids[0]!, {}, { heldQuotes }).catch((e: unknown) => e)
    expect(problemOf(again)).toMatchObject({ status: 409, meta: { state: "VOIDED" } })
    const [after] = await h.db.select().from(consoleApprovals).where(eq(consoleApprovals.intentId, ids[0]!))
    expect(after).toEqual(row)
    expect(await approveRequest(h, checker, ids[2]!, {}, { heldQuotes })).toMatchObject({ state: "APPROVED", placement: "PLACED" })
  })

  it("3. a random quote id with reviewed_quote.price 1.00 (SELL BTC) is refused with quote_not_current, on the trail, with no request", async () => {
    const refId = randomUUID()
    const body = { quote_id: randomUUID(), base_amount: "0.5", ref_id: refId, reviewed_quote: { market: "BTCUSD", side: "SELL" as const, price: "1.00" } }
    const error = await submitQuoteExecution(h, me, profileId, body, { heldQuotes }).catch((e: unknown) => e)
    expect(problemOf(error)).toMatchObject({ status: 422, code: "quote_not_current", meta: { fields: { quote_id: "was not served to you by this console" } } })
    expect(await h.db.select().from(consoleApprovals).where(eq(consoleApprovals.makerEmail, me.email))).toEqual([])
    const trail = await listAudit(h.db, { staff: me.email, state: "REFUSED", limit: 5 })
    expect(trail.items.map((e) => [e.ref_id, e.operation, e.market, e.side, e.problem?.title])).toEqual([[refId, "create_execution", "BTCUSD", "SELL", "Unprocessable Content"]])
    expect(await executionsWithRef(refId)).toEqual([])
  })

  it("3. a served quote reviewed at another price, or served to someone else, is refused; the served price makes the limit", async () => {
    const quote = await heldQuote("SELL", "BTCUSD")
    const lie = { quote_id: quote.id, base_amount: "0.5", ref_id: randomUUID(), reviewed_quote: { market: "BTCUSD", side: "SELL" as const, price: "1.00" } }
    const error = await submitQuoteExecution(h, me, profileId, lie, { heldQuotes }).catch((e: unknown) => e)
    expect(problemOf(error)).toMatchObject({ status: 422, code: "quote_not_current", meta: { fields: { reviewed_quote: "differs from the quote the console served" } } })
    // Served to the checker, not to this maker.
    const theirs = (await h.upstream.listQuotes(["ETHUSD"])).find((q) => q.side === "BUY")!
    await rememberServed(h.db, checker, [theirs])
    const borrowed = await submitQuoteExecution(h, me, profileId, { quote_id: theirs.id, quote_amount: "150.00", ref_id: randomUUID() }, { heldQuotes }).catch(
      (e: unknown) => e,
    )
    expect(problemOf(borrowed)).toMatchObject({ status: 422, code: "quote_not_current", meta: { fields: { quote_id: expect.any(String) as string } } })
    // Reviewed as served (the price written another way is the same price): a request whose limit is the served price's.
    const honest = await submitQuoteExecution(
      h,
      me,
      profileId,
      { quote_id: quote.id, quote_amount: "150.00", ref_id: randomUUID(), reviewed_quote: { market: "BTCUSD", side: "SELL", price: quote.price.includes(".") ? `${quote.price}0` : `${quote.price}.0` } },
      { heldQuotes: () => Promise.resolve([]) },
    ).catch((e: unknown) => e)
    // No held quote of BTCUSD SELL right now: refused too, nothing admitted on a price the console cannot size.
    expect(problemOf(honest)).toMatchObject({ status: 422, code: "no_held_quote" })
    const request = await submitQuoteExecution(
      h,
      me,
      profileId,
      { quote_id: quote.id, quote_amount: "150.00", ref_id: randomUUID(), reviewed_quote: { market: "BTCUSD", side: "SELL", price: quote.price } },
      { heldQuotes },
    )
    if (request.kind !== "request") throw new Error("expected a request")
    expect(request.request).toMatchObject({ reviewed_price: quote.price, side: "SELL" })
    expect(limitPrice("SELL", quote.price, "0.5").eq(toDecimal(request.request.limit_price!))).toBe(true)
  })
})
