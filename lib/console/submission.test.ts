import { randomUUID } from "node:crypto"
import { eq } from "drizzle-orm"
import { beforeEach, describe, expect, it } from "vitest"
import type { Staff } from "@/lib/auth/roles"
import { listAudit } from "@/lib/console/audit"
import { limitPrice, withinLimit } from "@/lib/console/approvals/state"
import { readPolicy, savePolicy, usedToday } from "@/lib/console/policy"
import { preTradeFacts } from "@/lib/console/pre-trade"
import { submitConversion, submitQuoteExecution } from "@/lib/console/submission"
import { consoleIntents } from "@/lib/db/schema"
import { roundUp, toDecimal } from "@/lib/money"
import type { Policy } from "@/lib/schemas/approvals"
import type { Quote } from "@/lib/schemas/records"
import { staffRef } from "@/lib/auth/staff-ref"
import { ApprovalsFixture, checker, intentInserts, problemOf } from "@/test/approvals"
import type { ConsoleHarness } from "@/test/console"
import { testDrivers } from "@/test/db"
import { linesOf, logLines } from "@/test/log-lines"
import { UpstreamUnavailableError } from "@/lib/upstream/errors"

describe.each(testDrivers())("submissions against the sandbox on %s", (driver) => {
  const f = new ApprovalsFixture(driver)
  const { heldQuotes, heldQuote, executionsWithRef, ask } = f
  let h: ConsoleHarness
  let profileId: string
  let me: Staff
  beforeEach(() => {
    ;({ h, profileId, me } = f)
  })

  it("an order under the threshold is placed at once; one at the threshold waits and sends nothing", async () => {
    const small = await ask("99.99")
    expect(small.submission.kind).toBe("placed")
    const big = await ask("100.00")
    if (big.submission.kind !== "request") throw new Error("expected a request")
    expect(big.submission.request).toMatchObject({
      state: "PENDING",
      placement: "NOT_SENT",
      kind: "execution",
      ref_id: big.refId,
      size: { amount: "100.00", currency: "USD" },
      market: "BTCUSD",
      side: "BUY",
      reviewed_price: big.quote.price,
      maker: { email: me.email, role: "trader" },
      checker: null,
    })
    expect(withinLimit("BUY", big.quote.price, big.submission.request.limit_price!)).toBe(true)
    expect(limitPrice("BUY", big.quote.price, "0.5").eq(big.submission.request.limit_price!)).toBe(true)
    expect(await executionsWithRef(big.refId)).toHaveLength(0)
    const [intent] = await h.db.select().from(consoleIntents).where(eq(consoleIntents.refId, big.refId))
    expect(intent?.state).toBe("AWAITING_APPROVAL")
  })

  it("a base_amount order's size is base × the held price, rounded up to cents", async () => {
    const quote = await heldQuote("BUY", "ETHUSD")
    const refId = randomUUID()
    // The console's quote cache remembers the quotes it served until they expire.
    const served = async () => [quote, ...(await heldQuotes())]
    const submission = await submitQuoteExecution(h, me, profileId, { quote_id: quote.id, base_amount: "0.01", ref_id: refId }, { heldQuotes: served })
    const expected = roundUp(toDecimal("0.01").mul(toDecimal(quote.price)), 2).toFixed(2)
    const [intent] = await h.db.select().from(consoleIntents).where(eq(consoleIntents.refId, refId))
    expect(intent?.sizeCurrency).toBe("USD")
    expect(toDecimal(intent!.sizeAmount!).toFixed(2)).toBe(expected)
    expect(submission.kind).toBe(toDecimal(expected).gte(100) ? "request" : "placed")
  })

  it("a quote that is no longer the current one needs the reviewed quote's market, side and price", async () => {
    const quote = await heldQuote("SELL", "ETHUSD")
    const body = { quote_id: quote.id, base_amount: "0.001", ref_id: randomUUID() }
    const notCurrent = () => h.upstream.listQuotes(["BTCUSD"])
    const error = await submitQuoteExecution(h, me, profileId, body, { heldQuotes: notCurrent }).catch((e: unknown) => e)
    expect(problemOf(error)).toMatchObject({ status: 422, code: "quote_not_current", meta: { fields: { reviewed_quote: expect.any(String) as string } } })
    const placed = await submitQuoteExecution(
      h,
      me,
      profileId,
      { ...body, reviewed_quote: { market: "ETHUSD", side: "SELL", price: quote.price } },
      { heldQuotes },
    )
    expect(placed.kind).toBe("placed")
  })

  it("a reviewed quote whose market and side have no held quote is refused, and only the refusal is written", async () => {
    const quote = await heldQuote("SELL", "ETHUSD")
    const refId = randomUUID()
    const body = { quote_id: quote.id, base_amount: "0.001", ref_id: refId, reviewed_quote: { market: "ETHUSD", side: "SELL" as const, price: quote.price } }
    const error = await submitQuoteExecution(h, me, profileId, body, { heldQuotes: () => h.upstream.listQuotes(["BTCUSD"]) }).catch((e: unknown) => e)
    expect(problemOf(error)).toMatchObject({ status: 422, code: "no_held_quote", meta: { fields: { "reviewed_quote.market": expect.any(String) as string } } })
    expect(await h.db.select().from(consoleIntents).where(eq(consoleIntents.refId, refId))).toEqual([])
    const trail = await listAudit(h.db, { state: "REFUSED", staff: me.email, limit: 5 })
    expect(trail.items.map((e) => [e.ref_id, e.market, e.side, e.problem?.title])).toEqual([[refId, "ETHUSD", "SELL", "Unprocessable Content"]])
  })

  it("a retry of a request's submission answers the same request; a different body under its ref_id is a conflict", async () => {
    const first = await ask("150.00")
    if (first.submission.kind !== "request") throw new Error("expected a request")
    const q = first.quote
    const body = { quote_id: q.id, quote_amount: "150.00", ref_id: first.refId, metadata: { desk: "fx" }, reviewed_quote: { market: q.market, side: q.side, price: q.price } }
    // The retry comes after the quote expired: the console answers from what it holds.
    const again = await submitQuoteExecution(h, me, profileId, body, { heldQuotes: () => Promise.resolve([]) })
    expect(again).toMatchObject({ kind: "request", replayed: true, request: { id: first.submission.request.id } })
    const other = await submitQuoteExecution(h, me, profileId, { ...body, quote_amount: "151.00" }, { heldQuotes }).catch((e: unknown) => e)
    expect(problemOf(other)).toMatchObject({ status: 409, code: "ref_id_reused" })
  })

  it("an order placed at once writes its intent once, where its limits were checked, and settles that intent with the record", async () => {
    const quote = await heldQuote()
    const refId = randomUUID()
    const body = { quote_id: quote.id, quote_amount: "20.00", ref_id: refId }
    const { result, inserts } = await intentInserts(h.db, () => submitQuoteExecution(h, me, profileId, body, { heldQuotes }))
    if (result.kind !== "placed") throw new Error("expected a placed execution")
    expect(inserts).toBe(1)
    const intents = await h.db.select().from(consoleIntents).where(eq(consoleIntents.refId, refId))
    expect(intents).toEqual([
      expect.objectContaining({ id: result.placed.intentId, state: "SUCCEEDED", recordId: result.placed.record.id, attempts: 1, sizeAmount: "20.00" }),
    ])
    expect((await executionsWithRef(refId)).map((r) => r.id)).toEqual([result.placed.record.id])

    const conversionRef = randomUUID()
    const conversion = { profile_id: profileId, amount: "25.00", source_asset: "USD" as const, target_asset: "PYUSD" as const, ref_id: conversionRef }
    const converted = await intentInserts(h.db, () => submitConversion(h, me, conversion))
    if (converted.result.kind !== "placed") throw new Error("expected a placed conversion")
    expect(converted.inserts).toBe(1)
    const [conversionIntent, ...more] = await h.db.select().from(consoleIntents).where(eq(consoleIntents.refId, conversionRef))
    expect(more).toEqual([])
    expect(conversionIntent).toMatchObject({
      id: converted.result.placed.intentId,
      state: "SUCCEEDED",
      recordId: converted.result.placed.record.id,
      upstreamApi: "stablecoin-conversions",
    })
  })

  it("a retry of a placed order replays its record once its quote is gone (no reviewed_quote), even over the day's limit", async () => {
    const quote = await heldQuote()
    const body = { quote_id: quote.id, quote_amount: "99.99", ref_id: randomUUID() }
    const first = await submitQuoteExecution(h, me, profileId, body, { heldQuotes: () => Promise.resolve([quote]) })
    if (first.kind !== "placed") throw new Error("expected a placed execution")
    // The rest of the day's limit is taken by requests: 99.99 + 3 × 800 = 2499.99 of 2500.
    for (let i = 0; i < 3; i++) expect((await ask("800.00")).submission.kind).toBe("request")
    const gone = () => Promise.resolve([] as Quote[])
    const again = await submitQuoteExecution(h, me, profileId, body, { heldQuotes: gone })
    expect(again).toMatchObject({ kind: "placed", placed: { replayed: true, intentId: first.placed.intentId, record: { id: first.placed.record.id } } })
    // With its quote still held, the retry is not refused by the limit its own order used.
    const held = await submitQuoteExecution(h, me, profileId, body, { heldQuotes: () => Promise.resolve([quote]) })
    expect(held).toMatchObject({ kind: "placed", placed: { replayed: true, record: { id: first.placed.record.id } } })
    expect((await executionsWithRef(body.ref_id)).map((r) => r.id)).toEqual([first.placed.record.id])
    // A new submission of the gone quote is refused; a different one under the taken ref_id is a conflict.
    const fresh = await submitQuoteExecution(h, me, profileId, { ...body, ref_id: randomUUID() }, { heldQuotes: gone }).catch((e: unknown) => e)
    expect(problemOf(fresh)).toMatchObject({ status: 422, code: "quote_not_current", meta: { fields: { reviewed_quote: expect.any(String) as string } } })
    const reused = await submitQuoteExecution(h, me, profileId, { ...body, quote_amount: "50.00" }, { heldQuotes: gone }).catch((e: unknown) => e)
    expect(problemOf(reused)).toMatchObject({ status: 409, code: "ref_id_reused" })
    const reusedHeld = await submitQuoteExecution(h, me, profileId, { ...body, quote_amount: "50.00" }, { heldQuotes: () => Promise.resolve([quote]) }).catch(
      (e: unknown) => e,
    )
    expect(problemOf(reusedHeld)).toMatchObject({ status: 409, code: "ref_id_reused" })
    // Four orders, and the three refusals on the audit trail.
    const mine = await h.db.select().from(consoleIntents).where(eq(consoleIntents.staffEmail, me.email))
    expect(mine.map((i) => i.state).sort()).toEqual(["AWAITING_APPROVAL", "AWAITING_APPROVAL", "AWAITING_APPROVAL", "REFUSED", "REFUSED", "REFUSED", "SUCCEEDED"])
  })

  it("a retry whose replay cannot read the placed record is told the service's error, and is not written as a refusal", async () => {
    const quote = await heldQuote()
    const body = { quote_id: quote.id, quote_amount: "40.00", ref_id: randomUUID() }
    const held = () => Promise.resolve([quote])
    const first = await submitQuoteExecution(h, me, profileId, body, { heldQuotes: held })
    if (first.kind !== "placed") throw new Error("expected a placed execution")
    // The service answers every read with a 503 while the retry comes in.
    await h.setFaults({ rules: [{ operation: "get", fault: "error", rate: 1, status: 503 }] })
    let failed: unknown
    try {
      failed = await submitQuoteExecution(h, me, profileId, body, { heldQuotes: held }).catch((e: unknown) => e)
    } finally {
      await h.setFaults({ rules: [] })
    }
    expect(failed).toBeInstanceOf(UpstreamUnavailableError)
    // Nothing was refused: the one order on the trail is the placed one, and a later retry replays it.
    const mine = await h.db.select().from(consoleIntents).where(eq(consoleIntents.staffEmail, me.email))
    expect(mine.map((i) => i.state)).toEqual(["SUCCEEDED"])
    const again = await submitQuoteExecution(h, me, profileId, body, { heldQuotes: held })
    expect(again).toMatchObject({ kind: "placed", placed: { replayed: true, record: { id: first.placed.record.id } } })
  })

  it("an order over the limit per order is refused with the numbers, nothing is sent, and each refusal is on the audit trail", async () => {
    const error = await ask("1000.01").catch((e: unknown) => e)
    expect(problemOf(error)).toMatchObject({
      status: 422,
      code: "limit_exceeded",
      meta: { limit: "per_order", currency: "USD", order_amount: "1000.01", per_order_limit: "1000.00", used_today: "0.00" },
    })
    expect(problemOf(error).detail).toContain("1,000.00 USD")
    // Two more: three refusals, three entries; none counts toward the day, none holds its ref_id.
    for (const amount of ["2000.00", "3000.00"]) await ask(amount).catch((e: unknown) => e)
    const trail = await listAudit(h.db, { staff: me.email, limit: 10 })
    expect(trail.items.map((e) => [e.state, e.operation, e.market, e.side, e.size?.amount, e.problem?.title])).toEqual(
      ["3000.00", "2000.00", "1000.01"].map((amount) => ["REFUSED", "create_execution", "BTCUSD", "BUY", amount, "Limit Exceeded"]),
    )
    expect(trail.items.every((e) => typeof e.ref_id === "string" && e.record_id === null)).toBe(true)
    expect((await usedToday(h.db, me.email, "USD", new Date())).toFixed(2)).toBe("0.00")
    // The form's pre-trade facts read the day as the admission does.
    expect((await preTradeFacts(h.db, me, new Date())).currencies.find((c) => c.currency === "USD")?.used_today).toBe("0.00")
    const refId = trail.items[0]!.ref_id!
    const q = await heldQuote()
    const corrected = await submitQuoteExecution(h, me, profileId, { quote_id: q.id, quote_amount: "10.00", ref_id: refId }, { heldQuotes })
    expect(corrected.kind).toBe("placed")
  })

  it("the daily limit counts the UTC day: refused at 23:59 with the numbers, allowed again at 00:00", async () => {
    const evening = () => new Date("2030-05-01T23:59:00Z")
    // Requests count against the day while they wait; 3 × 800 = 2400 of 2500.
    for (let i = 0; i < 3; i++) expect((await ask("800.00", me, { now: evening })).submission.kind).toBe("request")
    const over = await ask("100.01", me, { now: evening }).catch((e: unknown) => e)
    expect(problemOf(over)).toMatchObject({
      status: 422,
      code: "limit_exceeded",
      meta: { limit: "per_day", used_today: "2400.00", order_amount: "100.01", per_day_limit: "2500.00" },
    })
    expect(problemOf(over).detail).toBe(
      "Your daily limit is 2,500.00 USD (UTC day); you have used 2,400.00 USD today and this order adds 100.01 USD.",
    )
    expect((await ask("100.00", me, { now: evening })).submission.kind).toBe("request")
    const midnight = () => new Date("2030-05-02T00:00:00Z")
    expect((await ask("800.00", me, { now: midnight })).submission.kind).toBe("request")
  })

  it("20 orders at once by one trader never add up past the daily limit", async () => {
    const results = await Promise.allSettled(Array.from({ length: 20 }, () => ask("200.00")))
    const taken = results.filter((r) => r.status === "fulfilled").length
    expect(taken).toBe(12)
    const refused = results.flatMap((r) => (r.status === "rejected" ? [problemOf(r.reason).meta?.limit] : []))
    expect(refused).toEqual(Array.from({ length: 8 }, () => "per_day"))
  })

  it("a staff member's own limits override their role's", async () => {
    const before = (await readPolicy(h.db)).policy
    await savePolicy(h.db, checker, { ...before, staff_limits: { [me.email]: { per_order: { USD: "50.00" }, per_day: {} } } })
    try {
      const error = await ask("60.00").catch((e: unknown) => e)
      expect(problemOf(error).meta).toMatchObject({ limit: "per_order", per_order_limit: "50.00" })
    } finally {
      await savePolicy(h.db, checker, before)
    }
  })

  it("every policy change is on the audit trail with the policy before and after", async () => {
    const before = (await readPolicy(h.db)).policy
    const after: Policy = { ...before, price_tolerance_percent: "0.75" }
    await savePolicy(h.db, checker, after)
    await savePolicy(h.db, checker, before)
    const trail = await listAudit(h.db, { operation: "update_policy", limit: 2 })
    expect(trail.items.map((e) => [e.staff_email, e.state, e.target_id, (e.request.after as Policy).price_tolerance_percent, (e.request.before as Policy).price_tolerance_percent])).toEqual([
      [checker.email, "SUCCEEDED", "policy", "0.5", "0.75"],
      [checker.email, "SUCCEEDED", "policy", "0.75", "0.5"],
    ])
  })

  it("a new request says it is new and is logged once; its retry with the quote still held is the same request, replayed", async () => {
    const { result: first, lines } = await logLines(() => ask("150.00"))
    if (first.submission.kind !== "request") throw new Error("expected a request")
    expect(first.submission.replayed).toBe(false)
    expect(linesOf(lines, "approval.requested")).toEqual([expect.objectContaining({ intentId: first.submission.request.id, staff: staffRef(me.email) })])
    const q = first.quote
    const body = { quote_id: q.id, quote_amount: "150.00", ref_id: first.refId, metadata: { desk: "fx" }, reviewed_quote: { market: q.market, side: q.side, price: q.price } }
    const retry = await logLines(() => submitQuoteExecution(h, me, profileId, body, { heldQuotes: () => Promise.resolve([q]) }))
    expect(retry.result).toMatchObject({ kind: "request", replayed: true, request: { id: first.submission.request.id, state: "PENDING" } })
    expect(linesOf(retry.lines, "approval.requested")).toEqual([])
    const requests = await h.db.select().from(consoleIntents).where(eq(consoleIntents.refId, first.refId))
    expect(requests.map((i) => i.state)).toEqual(["AWAITING_APPROVAL"])
  })
})
