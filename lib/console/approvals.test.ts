import { randomUUID } from "node:crypto"
import { eq } from "drizzle-orm"
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest"
import type { Staff } from "@/lib/auth/roles"
import { approveRequest, rejectRequest, withdrawRequest } from "@/lib/console/approvals/decisions"
import { getApproval, listApprovals } from "@/lib/console/approvals/reads"
import { type ApprovalAction, limitPrice, transition, withinLimit } from "@/lib/console/approvals/state"
import { submitConversion, submitQuoteExecution } from "@/lib/console/submission"
import { listAudit } from "@/lib/console/audit"
import { reconcileIntents } from "@/lib/console/reconciler"
import { policyView, readPolicy, savePolicy } from "@/lib/console/policy"
import type { Db } from "@/lib/db/client"
import { consoleIntents } from "@/lib/db/schema"
import { roundUp, toDecimal } from "@/lib/money"
import { HttpProblem } from "@/lib/problem"
import { type ApprovalState, DEFAULT_POLICY, type Policy } from "@/lib/schemas/approvals"
import type { Quote } from "@/lib/schemas/records"
import { type ConsoleHarness, createConsoleHarness } from "@/test/console"
import { testDrivers } from "@/test/db"

const maker: Staff = { email: "trader@example.com", role: "trader" }
const checker: Staff = { email: "admin@example.com", role: "admin" }
const otherTrader: Staff = { email: "trader2@example.com", role: "trader" }
const support: Staff = { email: "support@example.com", role: "support" }

function problemOf(error: unknown): { status: number; detail?: string | undefined; meta?: Record<string, unknown> | undefined } {
  if (!(error instanceof HttpProblem)) throw new Error(`expected an HttpProblem, got ${String(error)}`)
  return error.problem
}

describe("the request state machine", () => {
  const now = new Date("2026-03-01T12:00:00Z")
  const later = new Date("2026-03-01T16:00:00Z")
  const ctx = (actor: Staff | null, extra: { reason?: string; at?: Date } = {}) => ({
    actor,
    makerEmail: maker.email,
    now: extra.at ?? now,
    expiresAt: later,
    reason: extra.reason,
  })

  const allowed: [ApprovalState, ApprovalAction, Staff | null, { reason?: string; at?: Date }, ApprovalState][] = [
    ["PENDING", "approve", checker, {}, "APPROVED"],
    ["PENDING", "approve", otherTrader, {}, "APPROVED"],
    ["PENDING", "reject", otherTrader, { reason: "too large today" }, "REJECTED"],
    ["PENDING", "withdraw", maker, {}, "WITHDRAWN"],
    ["PENDING", "withdraw", { ...maker, email: "TRADER@example.com" }, {}, "WITHDRAWN"],
    ["PENDING", "expire", null, { at: later }, "EXPIRED"],
    ["APPROVED", "price_moved", null, {}, "PRICE_MOVED"],
  ]
  for (const [from, action, actor, extra, to] of allowed) {
    it(`${from} --${action}${actor ? ` by ${actor.email}` : ""}--> ${to}`, () => {
      expect(transition(from, action, ctx(actor, extra))).toBe(to)
    })
  }

  const forbidden: [string, ApprovalState, ApprovalAction, Staff | null, { reason?: string; at?: Date }, number][] = [
    ["the maker approving their own request", "PENDING", "approve", maker, {}, 403],
    ["the maker rejecting their own request", "PENDING", "reject", maker, { reason: "x" }, 403],
    ["support approving", "PENDING", "approve", support, {}, 403],
    ["support rejecting", "PENDING", "reject", support, { reason: "x" }, 403],
    ["someone else withdrawing", "PENDING", "withdraw", checker, {}, 403],
    ["a reject without a reason", "PENDING", "reject", checker, {}, 400],
    ["a reject with a blank reason", "PENDING", "reject", checker, { reason: "   " }, 400],
    ["approving once expired", "PENDING", "approve", checker, { at: later }, 409],
    ["rejecting once expired", "PENDING", "reject", checker, { reason: "x", at: later }, 409],
    ["withdrawing once expired", "PENDING", "withdraw", maker, { at: later }, 409],
    ["expiring before its time", "PENDING", "expire", null, {}, 409],
    ["PRICE_MOVED before approval", "PENDING", "price_moved", null, {}, 409],
  ]
  for (const state of ["APPROVED", "REJECTED", "WITHDRAWN", "EXPIRED", "PRICE_MOVED"] as const) {
    forbidden.push([`approving a ${state} request`, state, "approve", checker, {}, 409])
    forbidden.push([`rejecting a ${state} request`, state, "reject", checker, { reason: "x" }, 409])
    forbidden.push([`withdrawing a ${state} request`, state, "withdraw", maker, {}, 409])
    forbidden.push([`expiring a ${state} request`, state, "expire", null, { at: later }, 409])
    if (state !== "APPROVED") forbidden.push([`PRICE_MOVED from ${state}`, state, "price_moved", null, {}, 409])
  }
  for (const [name, from, action, actor, extra, status] of forbidden) {
    it(`refuses ${name} with ${status}`, () => {
      let caught: unknown
      try {
        transition(from, action, ctx(actor, extra))
      } catch (error) {
        caught = error
      }
      expect(problemOf(caught).status).toBe(status)
    })
  }

  it("the limit price sits the tolerance away from the reviewed price, against the maker", () => {
    expect(limitPrice("BUY", "100.00", "0.5").toFixed()).toBe("100.5")
    expect(limitPrice("SELL", "100.00", "0.5").toFixed()).toBe("99.5")
    expect(withinLimit("BUY", "100.50", "100.5")).toBe(true)
    expect(withinLimit("BUY", "100.51", "100.5")).toBe(false)
    expect(withinLimit("SELL", "99.5", "99.5")).toBe(true)
    expect(withinLimit("SELL", "99.49", "99.5")).toBe(false)
  })
})

/** How many rows `run` inserts (or tries to) into console_intents, in a transaction or not. */
async function intentInserts<T>(db: Db, run: () => Promise<T>): Promise<{ result: T; inserts: number }> {
  let inserts = 0
  const count = (target: Pick<Db, "insert">) => {
    const insert = target.insert.bind(target)
    return vi.spyOn(target, "insert").mockImplementation((table) => {
      if (table === consoleIntents) inserts++
      return insert(table)
    })
  }
  const outside = count(db)
  const transaction = db.transaction.bind(db)
  const inside = vi.spyOn(db, "transaction").mockImplementation((work, config) =>
    transaction((tx) => {
      count(tx)
      return work(tx)
    }, config),
  )
  try {
    return { result: await run(), inserts }
  } finally {
    outside.mockRestore()
    inside.mockRestore()
  }
}

/** Small numbers, so that tests stay far from the sandbox's own limits. */
const TEST_POLICY: Policy = {
  ...DEFAULT_POLICY,
  approval_thresholds: { execution: { USD: "100.00", EUR: "90.00", SGD: "130.00" }, conversion: { USD: "100.00" } },
  role_limits: {
    trader: { per_order: { USD: "1000.00" }, per_day: { USD: "2500.00" } },
    admin: { per_order: { USD: "1000.00" }, per_day: { USD: "2500.00" } },
  },
}

describe.each(testDrivers())("approvals against the sandbox on %s", (driver) => {
  let h: ConsoleHarness
  let profileId: string
  // Each test gets its own maker (and so its own usage today).
  let me: Staff

  beforeAll(async () => {
    h = await createConsoleHarness({ driver })
    profileId = (await h.upstream.listProfiles()).items[0]!.id
    await savePolicy(h.db, checker, TEST_POLICY)
  })
  beforeEach(() => {
    me = { email: `maker-${randomUUID().slice(0, 8)}@example.com`, role: "trader" }
  })
  afterAll(async () => {
    await h?.close()
  })

  const heldQuotes = () => h.upstream.listQuotes([])
  async function heldQuote(side: "BUY" | "SELL" = "BUY", market = "BTCUSD"): Promise<Quote> {
    const quote = (await h.upstream.listQuotes([market])).find((q) => q.side === side)
    if (!quote) throw new Error(`no ${side} quote for ${market}`)
    return quote
  }
  async function executionsWithRef(refId: string) {
    const page = await h.upstream.listQuoteExecutions(profileId, { limit: 1000 })
    return page.items.filter((e) => e.ref_id === refId)
  }
  async function ask(quoteAmount: string, who: Staff = me, extra: { now?: () => Date } = {}) {
    const quote = await heldQuote()
    const refId = randomUUID()
    const submission = await submitQuoteExecution(
      h,
      who,
      profileId,
      {
        quote_id: quote.id,
        quote_amount: quoteAmount,
        ref_id: refId,
        metadata: { desk: "fx" },
        reviewed_quote: { market: quote.market, side: quote.side, price: quote.price },
      },
      { heldQuotes, ...extra },
    )
    return { submission, refId, quote }
  }

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
    expect(problemOf(error)).toMatchObject({ status: 422, meta: { fields: { reviewed_quote: expect.any(String) as string } } })
    const placed = await submitQuoteExecution(
      h,
      me,
      profileId,
      { ...body, reviewed_quote: { market: "ETHUSD", side: "SELL", price: quote.price } },
      { heldQuotes },
    )
    expect(placed.kind).toBe("placed")
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
    expect(problemOf(other).status).toBe(409)
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
    expect(problemOf(fresh)).toMatchObject({ status: 422, meta: { fields: { reviewed_quote: expect.any(String) as string } } })
    const reused = await submitQuoteExecution(h, me, profileId, { ...body, quote_amount: "50.00" }, { heldQuotes: gone }).catch((e: unknown) => e)
    expect(problemOf(reused).status).toBe(409)
    const reusedHeld = await submitQuoteExecution(h, me, profileId, { ...body, quote_amount: "50.00" }, { heldQuotes: () => Promise.resolve([quote]) }).catch(
      (e: unknown) => e,
    )
    expect(problemOf(reusedHeld).status).toBe(409)
    expect(await h.db.select().from(consoleIntents).where(eq(consoleIntents.staffEmail, me.email))).toHaveLength(4)
  })

  it("the maker cannot approve (403); someone else approves and exactly one record is placed under the request's ref_id", async () => {
    const { submission, refId } = await ask("200.00")
    if (submission.kind !== "request") throw new Error("expected a request")
    const id = submission.request.id
    const own = await approveRequest(h, me, id, {}, { heldQuotes }).catch((e: unknown) => e)
    expect(problemOf(own).status).toBe(403)
    const bySupport = await approveRequest(h, support, id, {}, { heldQuotes }).catch((e: unknown) => e)
    expect(problemOf(bySupport).status).toBe(403)
    expect((await getApproval(h.db, id)).state).toBe("PENDING")
    const approved = await approveRequest(h, checker, id, { comment: "fine" }, { heldQuotes })
    expect(approved).toMatchObject({
      state: "APPROVED",
      placement: "PLACED",
      checker: { email: checker.email, role: "admin" },
      comment: "fine",
      record_status: "CREATED",
    })
    const records = await executionsWithRef(refId)
    expect(records.map((r) => r.id)).toEqual([approved.record_id])
    expect(records[0]).toMatchObject({ quote_amount: "200.00", side: "BUY", market: "BTCUSD", metadata: { desk: "fx" } })
    expect(withinLimit("BUY", approved.executed_price!, approved.limit_price!)).toBe(true)
    // The intent is the maker's, its request is what the approval sent.
    const [intent] = await h.db.select().from(consoleIntents).where(eq(consoleIntents.refId, refId))
    expect(intent).toMatchObject({ staffEmail: me.email, state: "SUCCEEDED", recordId: approved.record_id })
    const again = await approveRequest(h, otherTrader, id, {}, { heldQuotes }).catch((e: unknown) => e)
    expect(problemOf(again).status).toBe(409)
  })

  it("20 simultaneous approvals of one request over two console instances place exactly one record", async () => {
    const { submission, refId } = await ask("300.00")
    if (submission.kind !== "request") throw new Error("expected a request")
    const instances = [h.anotherInstance(), h.anotherInstance()]
    const approvers = [checker, otherTrader]
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        approveRequest(instances[i % 2]!, approvers[i % 2]!, submission.request.id, {}, { heldQuotes: () => instances[i % 2]!.upstream.listQuotes([]) }),
      ),
    )
    const won = results.filter((r) => r.status === "fulfilled")
    const lost = results.flatMap((r) => (r.status === "rejected" ? [problemOf(r.reason).status] : []))
    expect(won).toHaveLength(1)
    expect(lost).toEqual(Array.from({ length: 19 }, () => 409))
    expect(await executionsWithRef(refId)).toHaveLength(1)
    expect(await getApproval(h.db, submission.request.id)).toMatchObject({ state: "APPROVED", placement: "PLACED" })
  })

  it("an approval whose send meets an outage stays SENDING until the reconciler settles its intent: one record", async () => {
    const { submission, refId } = await ask("210.00")
    if (submission.kind !== "request") throw new Error("expected a request")
    await h.setFaults({ rules: [{ operation: "create_execution", fault: "error", rate: 1, status: 503 }] })
    try {
      const approved = await approveRequest(h, checker, submission.request.id, {}, { heldQuotes })
      expect(approved).toMatchObject({ state: "APPROVED", placement: "SENDING", record_id: null })
    } finally {
      await h.setFaults({ rules: [] })
    }
    await reconcileIntents(h, { olderThanMs: 0 })
    const settled = await getApproval(h.db, submission.request.id)
    expect(settled).toMatchObject({ state: "APPROVED", placement: "PLACED" })
    expect((await executionsWithRef(refId)).map((r) => r.id)).toEqual([settled.record_id])
  })

  it("a reject needs a reason, ends REJECTED with it, and frees the day's usage", async () => {
    const { submission, refId } = await ask("400.00")
    if (submission.kind !== "request") throw new Error("expected a request")
    const id = submission.request.id
    const noReason = await rejectRequest(h.db, checker, id, { reason: "" }).catch((e: unknown) => e)
    expect(problemOf(noReason).status).toBe(400)
    const byMaker = await rejectRequest(h.db, me, id, { reason: "changed my mind" }).catch((e: unknown) => e)
    expect(problemOf(byMaker).status).toBe(403)
    const usage = async () => (await policyView(h.db, new Date())).usage_today.find((u) => u.staff_email === me.email)?.used_today
    expect(await usage()).toBe("400.00")
    const rejected = await rejectRequest(h.db, checker, id, { reason: "over the desk's appetite" })
    expect(rejected).toMatchObject({ state: "REJECTED", reason: "over the desk's appetite", checker: { email: checker.email }, placement: "NOT_SENT" })
    expect(rejected.problem?.title).toBe("Rejected")
    expect(await usage()).toBeUndefined()
    expect(await executionsWithRef(refId)).toHaveLength(0)
    const approveAfter = await approveRequest(h, otherTrader, id, {}, { heldQuotes }).catch((e: unknown) => e)
    expect(problemOf(approveAfter)).toMatchObject({ status: 409, meta: { state: "REJECTED" } })
  })

  it("only the maker can withdraw a pending request; their own pending ones are not counted as theirs to approve", async () => {
    const { submission } = await ask("120.00")
    if (submission.kind !== "request") throw new Error("expected a request")
    const forMaker = await listApprovals(h.db, { state: "PENDING", limit: 200 }, new Date(), me)
    const forChecker = await listApprovals(h.db, { state: "PENDING", limit: 200 }, new Date(), checker)
    expect(forChecker.pending_for_you - forMaker.pending_for_you).toBe(1)
    expect(forMaker.items.map((r) => r.id)).toContain(submission.request.id)
    const byOther = await withdrawRequest(h.db, checker, submission.request.id, {}).catch((e: unknown) => e)
    expect(problemOf(byOther).status).toBe(403)
    expect(await withdrawRequest(h.db, me, submission.request.id, {})).toMatchObject({ state: "WITHDRAWN", placement: "NOT_SENT" })
  })

  it("a request left past its time is EXPIRED and can no longer be approved", async () => {
    const { submission } = await ask("130.00")
    if (submission.kind !== "request") throw new Error("expected a request")
    const expiresAt = new Date(submission.request.expires_at)
    expect(expiresAt.getTime() - new Date(submission.request.created_at).getTime()).toBe(TEST_POLICY.request_ttl_minutes * 60_000)
    const after = () => new Date(expiresAt.getTime() + 1)
    const late = await approveRequest(h, checker, submission.request.id, {}, { heldQuotes, now: after }).catch((e: unknown) => e)
    expect(problemOf(late)).toMatchObject({ status: 409, meta: { state: "EXPIRED" } })
    const listed = await listApprovals(h.db, { limit: 200 }, after())
    expect(listed.items.find((r) => r.id === submission.request.id)).toMatchObject({ state: "EXPIRED", placement: "NOT_SENT" })
  })

  it("an approval after the market moved past the limit price ends PRICE_MOVED and places nothing", async () => {
    const { submission, refId } = await ask("140.00")
    if (submission.kind !== "request") throw new Error("expected a request")
    await h.moveMarket("BTC", "5")
    // Quotes priced before the move stay held until their second has passed.
    const limit = toDecimal(submission.request.limit_price!)
    for (let i = 0; i < 40; i++) {
      const now = (await h.upstream.listQuotes(["BTCUSD"])).find((q) => q.side === "BUY")
      if (now && toDecimal(now.price).gt(limit)) break
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    const moved = await approveRequest(h, checker, submission.request.id, {}, { heldQuotes: () => h.upstream.listQuotes(["BTCUSD"]) })
    expect(moved).toMatchObject({ state: "PRICE_MOVED", placement: "NOT_SENT" })
    expect(withinLimit("BUY", moved.executed_price!, moved.limit_price!)).toBe(false)
    expect(moved.problem?.detail).toContain(moved.limit_price!)
    expect(await executionsWithRef(refId)).toHaveLength(0)
    await h.moveMarket("BTC", "-4.7619")
  })

  it("a conversion over the threshold waits, and once approved is created and settles", async () => {
    const refId = randomUUID()
    const body = { profile_id: profileId, amount: "500.00", source_asset: "USD" as const, target_asset: "PYUSD" as const, ref_id: refId }
    const submission = await submitConversion(h, me, body)
    if (submission.kind !== "request") throw new Error("expected a request")
    expect(submission.request).toMatchObject({ kind: "conversion", size: { amount: "500.00", currency: "USD" }, limit_price: null })
    expect((await h.upstream.listConversions({ ref_id: refId })).items).toHaveLength(0)
    const approved = await approveRequest(h, checker, submission.request.id, {}, { heldQuotes })
    expect(approved).toMatchObject({ state: "APPROVED", placement: "PLACED", record_status: "CREATED" })
    await h.sandbox.settleDue()
    expect((await h.upstream.getConversion(approved.record_id!)).status).toBe("SETTLED")
  })

  it("an order over the limit per order is refused with the numbers, and nothing is written or sent", async () => {
    const error = await ask("1000.01").catch((e: unknown) => e)
    expect(problemOf(error)).toMatchObject({
      status: 422,
      meta: { limit: "per_order", currency: "USD", order_amount: "1000.01", per_order_limit: "1000.00", used_today: "0.00" },
    })
    expect(problemOf(error).detail).toContain("1000.00 USD")
    const mine = await h.db.select().from(consoleIntents).where(eq(consoleIntents.staffEmail, me.email))
    expect(mine).toHaveLength(0)
  })

  it("the daily limit counts the UTC day: refused at 23:59 with the numbers, allowed again at 00:00", async () => {
    const evening = () => new Date("2030-05-01T23:59:00Z")
    // Requests count against the day while they wait; 3 × 800 = 2400 of 2500.
    for (let i = 0; i < 3; i++) expect((await ask("800.00", me, { now: evening })).submission.kind).toBe("request")
    const over = await ask("100.01", me, { now: evening }).catch((e: unknown) => e)
    expect(problemOf(over)).toMatchObject({
      status: 422,
      meta: { limit: "per_day", used_today: "2400.00", order_amount: "100.01", per_day_limit: "2500.00" },
    })
    expect(problemOf(over).detail).toBe(
      "Your daily limit is 2500.00 USD (UTC day); you have used 2400.00 USD today and this order adds 100.01 USD.",
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
})
