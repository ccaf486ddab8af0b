import { randomUUID } from "node:crypto"
import { eq, sql } from "drizzle-orm"
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest"
import type { Staff } from "@/lib/auth/roles"
import { listAudit } from "@/lib/console/audit"
import { openIntent, settleIntent } from "@/lib/console/intents"
import { type ConsoleDeps, cancelConversion, executeQuote, intentOfRef, writtenIntent } from "@/lib/console/operations"
import { log } from "@/lib/log"
import { HttpProblem } from "@/lib/problem"
import { reconcileIntents } from "@/lib/console/reconciler"
import { consoleIntents } from "@/lib/db/schema"
import { unitDraw } from "@/lib/sandbox/random"
import type { Quote } from "@/lib/schemas/records"
import { CONVERSIONS_APIS, type ConversionsApi } from "@/lib/schemas/constants"
import type { Conversion } from "@/lib/schemas/records"
import { type FaultRule } from "@/lib/schemas/sandbox-tools"
import { UpstreamProblemError } from "@/lib/upstream"
import { type ConsoleHarness, createConsoleHarness, placeConversion, placeExecution } from "@/test/console"
import { testDrivers } from "@/test/db"
import { insertIntentRows } from "@/test/intents"

const trader: Staff = { email: "trader@example.com", role: "trader" }

/**
 * A seed under which rule `ruleIndex` fires for the n-th request of `operation` exactly
 * when `pattern[n]` is true (the sandbox's faults are a pure function of the seed).
 */
function seedFor(operation: string, rate: number, pattern: boolean[], ruleIndex = 0): number {
  for (let seed = 1; seed < 100_000; seed++) {
    if (pattern.every((fires, n) => unitDraw("fault", seed, operation, ruleIndex, n) < rate === fires)) return seed
  }
  throw new Error("no seed found")
}

describe.each(testDrivers())("console operations against the sandbox on %s", (driver) => {
  let h: ConsoleHarness
  let profileId: string

  beforeAll(async () => {
    h = await createConsoleHarness({ driver, timeoutMs: 400 })
    const profiles = await h.upstream.listProfiles()
    profileId = profiles.items[0]!.id
  })
  afterEach(async () => {
    await h.setFaults({ rules: [] })
  })
  afterAll(async () => {
    await h?.close()
  })

  async function heldQuote(side: "BUY" | "SELL" = "BUY", market = "BTCUSD"): Promise<Quote> {
    const quotes = await h.upstream.listQuotes([market])
    const quote = quotes.find((q) => q.side === side)
    if (!quote) throw new Error(`no ${side} quote for ${market}`)
    return quote
  }

  async function executionsWithRef(refId: string) {
    const found = []
    let cursor: string | undefined
    do {
      const page = await h.upstream.listQuoteExecutions(profileId, { limit: 1000, page_cursor: cursor })
      found.push(...page.items.filter((e) => e.ref_id === refId))
      cursor = page.next_page_cursor || undefined
    } while (cursor)
    return found
  }

  /** The next execution's first attempt stores the record and fails with `first`; the two retries meet a 503 outage. */
  async function placedThenOutage(first: 503 | "drop") {
    await h.setFaults({
      seed: seedFor("create_execution", 0.8, [false, true, true]),
      rules: [
        { operation: "create_execution", fault: "error", rate: 0.8, status: 503 },
        { operation: "create_execution", fault: "commit_then_fail", rate: 1, status: first },
      ],
    })
  }

  async function intentOf(refId: string) {
    const [row] = await h.db.select().from(consoleIntents).where(eq(consoleIntents.refId, refId))
    return row
  }

  it("places an execution and records a SUCCEEDED intent with the record's id", async () => {
    const quote = await heldQuote()
    const refId = randomUUID()
    const placed = await placeExecution(h, trader, profileId, { quote_id: quote.id, base_amount: "0.01", ref_id: refId })
    expect(placed.record).toMatchObject({ status: "CREATED", base_amount: "0.01000000", ref_id: refId })
    expect(placed.replayed).toBe(false)
    const intent = await intentOf(refId)
    expect(intent).toMatchObject({
      state: "SUCCEEDED",
      recordId: placed.record.id,
      recordStatus: "CREATED",
      staffEmail: "trader@example.com",
      staffRole: "trader",
      operation: "create_execution",
      profileId,
    })
    expect(intent?.request).toMatchObject({ quote_id: quote.id, base_amount: "0.01", ref_id: refId, profile_id: profileId })
  })

  /**
   * The harness with a database whose every UPDATE fails: intents open, but never settle.
   * A test that uses it settles its intent itself afterwards, as the reconciler would, so
   * the reconciler's tests below find only their own.
   */
  function settlingFails(): ConsoleDeps {
    const db = new Proxy(h.db, {
      get(target, name, receiver) {
        if (name === "update") {
          return () => {
            throw new Error("the database went away")
          }
        }
        const value: unknown = Reflect.get(target, name, receiver)
        return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value
      },
    })
    return { ...h, db }
  }

  it("a placement handed another create's intent, or a settled one as fresh, stops before anything reaches the service", async () => {
    const quote = await heldQuote()
    const other = randomUUID()
    const { intent } = await openIntent(h.db, { staff: trader, operation: "create_execution", profileId, refId: other, request: { profile_id: profileId, quote_id: quote.id, base_amount: "0.01", ref_id: other } })
    const refId = randomUUID()
    const body = { quote_id: quote.id, base_amount: "0.01", ref_id: refId }
    await expect(executeQuote(h, trader, profileId, body, writtenIntent(intent))).rejects.toThrow(
      `intent ${intent.id} is not the PENDING create_execution of ref_id ${refId}`,
    )
    // The right ref_id, but an intent that is no longer PENDING, handed over as just written.
    const placed = await placeExecution(h, trader, profileId, { ...body, ref_id: other })
    const settled = await intentOf(other)
    expect(settled?.state).toBe("SUCCEEDED")
    await expect(executeQuote(h, trader, profileId, { ...body, ref_id: other }, writtenIntent(settled!))).rejects.toThrow(/is not the PENDING create_execution/)
    // A conversion's intent is not an execution's, whatever its ref_id.
    const conversionRef = randomUUID()
    const conversion = await openIntent(h.db, { staff: trader, operation: "create_conversion", profileId, refId: conversionRef, request: { ref_id: conversionRef } })
    await expect(executeQuote(h, trader, profileId, { ...body, ref_id: conversionRef }, writtenIntent(conversion.intent))).rejects.toThrow(
      `is not the PENDING create_execution of ref_id ${conversionRef}`,
    )
    // Nor when a source hands it over as the intent the ref_id already had.
    await expect(executeQuote(h, trader, profileId, { ...body, ref_id: conversionRef }, () => Promise.resolve({ intent: conversion.intent, created: false }))).rejects.toThrow(
      `intent ${conversion.intent.id} is not the create_execution of ref_id ${conversionRef}`,
    )
    expect(await executionsWithRef(refId)).toHaveLength(0)
    expect(await executionsWithRef(conversionRef)).toHaveLength(0)
    expect(await executionsWithRef(other)).toEqual([expect.objectContaining({ id: placed.record.id })])
    expect(await intentOf(refId)).toBeUndefined()
    expect((await intentOf(conversionRef))?.state).toBe("PENDING")
    await settleIntent(h.db, conversion.intent.id, { state: "FAILED", problem: { title: "never sent (test)" }, attempts: 0 })
  })

  it("a placement whose ref_id was never admitted stops before anything reaches the service, naming the ref_id", async () => {
    const quote = await heldQuote()
    const refId = randomUUID()
    const body = { quote_id: quote.id, base_amount: "0.01", ref_id: refId }
    await expect(executeQuote(h, trader, profileId, body, intentOfRef(h.db, "create_execution", refId))).rejects.toThrow(
      `no create_execution intent has ref_id ${refId}: a create is admitted before it is placed`,
    )
    expect(await executionsWithRef(refId)).toHaveLength(0)
  })

  it("a placed record whose intent cannot be settled is still answered, and the failure is logged for the reconciler", async () => {
    const error = vi.spyOn(log, "error").mockImplementation(() => undefined)
    try {
      const quote = await heldQuote()
      const refId = randomUUID()
      const placed = await placeExecution(settlingFails(), trader, profileId, { quote_id: quote.id, base_amount: "0.01", ref_id: refId })
      expect(placed.record).toMatchObject({ ref_id: refId, status: "CREATED" })
      expect(await executionsWithRef(refId)).toHaveLength(1)
      const intent = await intentOf(refId)
      expect(intent?.state).toBe("PENDING")
      expect(error).toHaveBeenCalledWith("intent.settle_failed", { intentId: intent!.id, error: "Error: the database went away" })
      await settleIntent(h.db, intent!.id, { state: "SUCCEEDED", recordId: placed.record.id, recordStatus: placed.record.status, attempts: 1 })
    } finally {
      error.mockRestore()
    }
  })

  it("a refused create whose intent cannot be settled answers the service's refusal, not the database's error", async () => {
    const error = vi.spyOn(log, "error").mockImplementation(() => undefined)
    try {
      const quote = await heldQuote()
      const refId = randomUUID()
      // More than the profile holds: the service refuses it.
      const refused = await placeExecution(settlingFails(), trader, profileId, { quote_id: quote.id, base_amount: "100000", ref_id: refId }).catch((e: unknown) => e)
      expect(refused).toBeInstanceOf(UpstreamProblemError)
      expect((refused as UpstreamProblemError).outcome).toBe("rejected")
      const intent = await intentOf(refId)
      expect(intent?.state).toBe("PENDING")
      expect(error).toHaveBeenCalledWith("intent.settle_failed", { intentId: intent!.id, error: "Error: the database went away" })
      await settleIntent(h.db, intent!.id, { state: "FAILED", problem: { title: "refused (test)" }, attempts: 1 })
    } finally {
      error.mockRestore()
    }
  })

  it("sends the caller's ref_id to the service, and logs the placement once with its intent and record", async () => {
    const info = vi.spyOn(log, "info")
    try {
      const quote = await heldQuote()
      const refId = randomUUID()
      const placed = await placeExecution(h, trader, profileId, { quote_id: quote.id, quote_amount: "10.00", ref_id: refId })
      expect(placed.record.ref_id).toBe(refId)
      const lines = info.mock.calls.filter(([event]) => event === "intent.succeeded")
      expect(lines).toEqual([
        ["intent.succeeded", expect.objectContaining({ intentId: placed.intentId, operation: "create_execution", staff: trader.email, recordId: placed.record.id, replayed: false, attempts: 1 })],
      ])
    } finally {
      info.mockRestore()
    }
  })

  it("a retry of the same submission returns the same record, never a second one", async () => {
    const quote = await heldQuote()
    const body = { quote_id: quote.id, base_amount: "0.002", ref_id: randomUUID() }
    const first = await placeExecution(h, trader, profileId, body)
    const again = await placeExecution(h, trader, profileId, { ...body, base_amount: "0.00200000" })
    expect(again.record.id).toBe(first.record.id)
    expect(again.replayed).toBe(true)
    expect(await executionsWithRef(body.ref_id)).toHaveLength(1)
  })

  it("100 concurrent identical submissions make one record, and every answer carries its id", async () => {
    const quote = await heldQuote()
    const body = { quote_id: quote.id, quote_amount: "25.00", ref_id: randomUUID() }
    const answers = await Promise.all(Array.from({ length: 100 }, () => placeExecution(h, trader, profileId, body)))
    const ids = new Set(answers.map((a) => a.record.id))
    expect(ids.size).toBe(1)
    expect(await executionsWithRef(body.ref_id)).toHaveLength(1)
    expect((await intentOf(body.ref_id))?.state).toBe("SUCCEEDED")
  })

  it("100 identical submissions spread over 4 console instances make one record, and every answer carries its id", async () => {
    const quote = await heldQuote()
    const body = { quote_id: quote.id, quote_amount: "26.00", ref_id: randomUUID() }
    const instances = Array.from({ length: 4 }, () => h.anotherInstance())
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) => placeExecution(instances[i % instances.length]!, trader, profileId, body)),
    )
    const ids = new Set(answers.map((a) => a.record.id))
    expect(ids.size).toBe(1)
    // Within an instance the submissions share one call; across instances only one places it,
    // the other three meet the intent's unique ref_id or the service's 409 and answer "replayed".
    expect(answers.filter((a) => a.replayed).length).toBeGreaterThanOrEqual(75)
    expect(await executionsWithRef(body.ref_id)).toHaveLength(1)
    const intents = await h.db.select().from(consoleIntents).where(eq(consoleIntents.refId, body.ref_id))
    expect(intents.map((i) => i.state)).toEqual(["SUCCEEDED"])
  })

  /** One console instance (its own in-flight table) whose service counts the execution creates it is sent; `refuse` stands in for the service's answer. */
  function countingCreates(refuse?: () => Promise<never>): { deps: ConsoleDeps; creates: () => number } {
    let sent = 0
    const upstream: typeof h.upstream = Object.create(h.upstream) as typeof h.upstream
    upstream.createQuoteExecution = (id, body) => {
      sent += 1
      return refuse ? refuse() : h.upstream.createQuoteExecution(id, body)
    }
    return { deps: { db: h.db, upstream }, creates: () => sent }
  }

  it("identical submissions at once in one instance send the service a single create between them", async () => {
    const quote = await heldQuote()
    const { deps, creates } = countingCreates()
    const body = { quote_id: quote.id, quote_amount: "11.00", ref_id: randomUUID() }
    const answers = await Promise.all(Array.from({ length: 10 }, () => placeExecution(deps, trader, profileId, body)))
    expect(creates()).toBe(1)
    expect(new Set(answers.map((a) => a.record.id)).size).toBe(1)
  })

  it("different orders at once in one instance are each placed under its own ref_id", async () => {
    const quote = await heldQuote()
    const { deps, creates } = countingCreates()
    const refs = [randomUUID(), randomUUID()]
    const [a, b] = await Promise.all(refs.map((ref_id, i) => placeExecution(deps, trader, profileId, { quote_id: quote.id, quote_amount: `1${i}.00`, ref_id })))
    expect([a!.record.ref_id, b!.record.ref_id]).toEqual(refs)
    expect(a!.record.id).not.toBe(b!.record.id)
    expect(creates()).toBe(2)
    // Conversions too.
    const conversionRefs = [randomUUID(), randomUUID()]
    const conversions = await Promise.all(
      conversionRefs.map((ref_id, i) => placeConversion(h, trader, { profile_id: profileId, amount: `${i + 1}.50`, source_asset: "USD", target_asset: "USDP", ref_id })),
    )
    expect(conversions.map((c) => [c.record.ref_id, c.record.amount])).toEqual([
      [conversionRefs[0], "1.5"],
      [conversionRefs[1], "2.5"],
    ])
  })

  it("a retry of a placed order is answered from its intent: the create is not sent again, even where the service would now refuse it", async () => {
    const quote = await heldQuote()
    const body = { quote_id: quote.id, base_amount: "0.0021", ref_id: randomUUID() }
    const first = await placeExecution(h, trader, profileId, body)
    // A service that checks the quote's expiry before the ref_id, the quote expired since.
    const expired = () => Promise.reject(new UpstreamProblemError({ type: "https://developer.paxos.com/docs/v2/problems/expired", title: "Expired", status: 403, detail: "quote expired" }))
    const { deps, creates } = countingCreates(expired)
    // As a resubmission finds it: the intent its ref_id already has.
    const again = await executeQuote(deps, trader, profileId, body, intentOfRef(h.db, "create_execution", body.ref_id))
    expect(again).toMatchObject({ replayed: true, intentId: first.intentId, record: { id: first.record.id, ref_id: body.ref_id } })
    expect(creates()).toBe(0)
  })

  it("concurrent submissions reusing one ref_id for different amounts: one is placed, the others are conflicts", async () => {
    const quote = await heldQuote()
    const refId = randomUUID()
    const amounts = ["0.001", "0.002", "0.003"]
    const results = await Promise.allSettled(
      amounts.map((base_amount) => placeExecution(h, trader, profileId, { quote_id: quote.id, base_amount, ref_id: refId })),
    )
    const placed = results.filter((r) => r.status === "fulfilled")
    const refused = results.flatMap((r) => (r.status === "rejected" ? [r.reason as unknown] : []))
    expect(placed).toHaveLength(1)
    expect(refused).toHaveLength(2)
    for (const error of refused) {
      expect(error).toBeInstanceOf(HttpProblem)
      expect((error as HttpProblem).problem.status).toBe(409)
      expect((error as HttpProblem).problem.code).toBe("ref_id_reused")
    }
    const records = await executionsWithRef(refId)
    expect(records.map((r) => r.base_amount)).toEqual(["0.00100000"])
  })

  it("reusing a ref_id for a different request is a conflict and sends nothing", async () => {
    const quote = await heldQuote()
    const refId = randomUUID()
    await placeExecution(h, trader, profileId, { quote_id: quote.id, base_amount: "0.001", ref_id: refId })
    const error = await placeExecution(h, trader, profileId, { quote_id: quote.id, base_amount: "0.5", ref_id: refId }).catch(
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(HttpProblem)
    expect((error as HttpProblem).problem.status).toBe(409)
    expect((error as HttpProblem).problem.code).toBe("ref_id_reused")
    // The same amount under the ref_id but another quote, other metadata, or the amount on the other side: each another request.
    const other = await heldQuote("SELL")
    for (const body of [
      { quote_id: other.id, base_amount: "0.001", ref_id: refId },
      { quote_id: quote.id, base_amount: "0.001", ref_id: refId, metadata: { desk: "fx" } },
      { quote_id: quote.id, quote_amount: "0.001", ref_id: refId },
    ]) {
      const reused = await placeExecution(h, trader, profileId, body).catch((e: unknown) => e)
      expect((reused as HttpProblem).problem).toMatchObject({ status: 409, code: "ref_id_reused" })
    }
    const records = await executionsWithRef(refId)
    expect(records.map((r) => r.base_amount)).toEqual(["0.00100000"])
  })

  it("a refusal of the service ends FAILED with its problem, and nothing is placed", async () => {
    const quote = await heldQuote()
    const refId = randomUUID()
    const error = await placeExecution(h, trader, profileId, { quote_id: quote.id, base_amount: "100000", ref_id: refId }).catch(
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(UpstreamProblemError)
    const intent = await intentOf(refId)
    expect(intent?.state).toBe("FAILED")
    expect(intent?.problem).toMatchObject({ status: expect.any(Number) as number, title: expect.any(String) as string })
    expect(await executionsWithRef(refId)).toHaveLength(0)
  })

  const retryable: { name: string; rule: Omit<FaultRule, "operation" | "rate">; firstOnly: boolean }[] = [
    { name: "a 500", rule: { fault: "error", status: 500 }, firstOnly: true },
    { name: "a 502", rule: { fault: "error", status: 502 }, firstOnly: true },
    { name: "a 503", rule: { fault: "error", status: 503 }, firstOnly: true },
    { name: "a 504", rule: { fault: "error", status: 504 }, firstOnly: true },
    { name: "a 429", rule: { fault: "rate_limit" }, firstOnly: true },
    { name: "a hang until the timeout", rule: { fault: "hang" }, firstOnly: true },
    { name: "commit then 503", rule: { fault: "commit_then_fail", status: 503 }, firstOnly: false },
    { name: "commit then 504", rule: { fault: "commit_then_fail", status: 504 }, firstOnly: false },
    { name: "commit then a dropped connection", rule: { fault: "commit_then_fail", status: "drop" }, firstOnly: false },
  ]

  for (const { name, rule, firstOnly } of retryable) {
    it(`an execution meeting ${name} ends in exactly one record and a SUCCEEDED intent`, async () => {
      const quote = await heldQuote()
      const rate = firstOnly ? 0.5 : 1
      await h.setFaults({
        seed: firstOnly ? seedFor("create_execution", rate, [true, false]) : 1,
        rules: [{ operation: "create_execution", rate, ...rule }],
      })
      const refId = randomUUID()
      const placed = await placeExecution(h, trader, profileId, { quote_id: quote.id, base_amount: "0.0005", ref_id: refId })
      expect(placed.replayed).toBe(!firstOnly)
      const records = await executionsWithRef(refId)
      expect(records.map((r) => r.id)).toEqual([placed.record.id])
      const intent = await intentOf(refId)
      expect(intent).toMatchObject({ state: "SUCCEEDED", recordId: placed.record.id, attempts: 2 })
    })
  }

  it("an outage past every retry leaves the intent UNKNOWN until the reconciler learns the outcome", async () => {
    const quote = await heldQuote()
    await placedThenOutage(503)
    const refId = randomUUID()
    await expect(placeExecution(h, trader, profileId, { quote_id: quote.id, base_amount: "0.0003", ref_id: refId })).rejects.toThrow()
    expect((await intentOf(refId))?.state).toBe("UNKNOWN")
    await h.setFaults({ rules: [] })
    const report = await reconcileIntents(h, { olderThanMs: 0 })
    expect(report.unresolved).toBe(0)
    const intent = await intentOf(refId)
    const records = await executionsWithRef(refId)
    expect(records).toHaveLength(1)
    expect(intent).toMatchObject({ state: "SUCCEEDED", recordId: records[0]!.id })
  })

  it("the reconciler finds a placed execution even where the service refuses the create again as Expired", async () => {
    const quote = await heldQuote()
    await placedThenOutage("drop")
    const refId = randomUUID()
    await expect(placeExecution(h, trader, profileId, { quote_id: quote.id, base_amount: "0.0004", ref_id: refId })).rejects.toThrow()
    await h.setFaults({ rules: [] })
    expect((await intentOf(refId))?.state).toBe("UNKNOWN")
    // A service that checks the quote's expiry before the ref_id: a create sent again is refused.
    const expiredFirst: typeof h.upstream = Object.create(h.upstream) as typeof h.upstream
    expiredFirst.createQuoteExecution = () =>
      Promise.reject(
        new UpstreamProblemError({
          type: "https://developer.paxos.com/docs/v2/problems/expired",
          title: "Expired",
          status: 403,
          detail: "quote expired",
          meta: { expired_at: quote.expires_at },
        }),
      )
    await reconcileIntents({ db: h.db, upstream: expiredFirst }, { olderThanMs: 0 })
    const records = await executionsWithRef(refId)
    expect(records).toHaveLength(1)
    expect(await intentOf(refId)).toMatchObject({ state: "SUCCEEDED", recordId: records[0]!.id })
  })

  it("the reconciler keeps an intent UNKNOWN when it cannot look the record up, whatever the look-up's error", async () => {
    const quote = await heldQuote()
    await placedThenOutage(503)
    const refId = randomUUID()
    await expect(placeExecution(h, trader, profileId, { quote_id: quote.id, base_amount: "0.0005", ref_id: refId })).rejects.toThrow()
    await h.setFaults({ rules: [] })
    const blind: typeof h.upstream = Object.create(h.upstream) as typeof h.upstream
    blind.listQuoteExecutions = () =>
      Promise.reject(new UpstreamProblemError({ type: "about:blank", title: "Bad Request", status: 400, detail: "unknown parameter" }))
    const report = await reconcileIntents({ db: h.db, upstream: blind }, { olderThanMs: 0 })
    expect(report.failed).toBe(0)
    expect((await intentOf(refId))?.state).toBe("UNKNOWN")
    // Once the service can be asked, the record is found.
    await reconcileIntents(h, { olderThanMs: 0 })
    const records = await executionsWithRef(refId)
    expect(await intentOf(refId)).toMatchObject({ state: "SUCCEEDED", recordId: records[0]!.id })
  })

  it("the reconciler does not take another request's record that carries the same ref_id for this intent's", async () => {
    const quote = await heldQuote()
    const refId = randomUUID()
    const theirs = await h.upstream.createQuoteExecution(profileId, { quote_id: quote.id, base_amount: "0.0007", ref_id: refId })
    await insertIntentRows(h.db, {
      staffEmail: trader.email,
      staffRole: trader.role,
      operation: "create_execution",
      profileId,
      refId,
      state: "UNKNOWN",
      request: { profile_id: profileId, quote_id: quote.id, base_amount: "0.0009", ref_id: refId },
    })
    await reconcileIntents(h, { olderThanMs: 0 })
    const intent = await intentOf(refId)
    expect(intent?.state).toBe("FAILED")
    expect(intent?.recordId).toBeNull()
    expect(intent?.problem).toMatchObject({ status: 409, title: "Already Exists", code: "already_exists" })
    expect((await executionsWithRef(refId)).map((r) => r.id)).toEqual([theirs.record.id])
  })

  it("the reconciler takes an intent stamped in the same millisecond as its clock", async () => {
    // The database stamps microseconds, the reconciler's clock has milliseconds.
    const refId = randomUUID()
    await insertIntentRows(h.db, {
      staffEmail: trader.email,
      staffRole: trader.role,
      operation: "create_conversion",
      profileId,
      refId,
      state: "UNKNOWN",
      request: { profile_id: profileId, amount: "3.00", source_asset: "USD", target_asset: "USDG", ref_id: refId },
      updatedAt: sql`'2020-01-01T00:00:00.123456Z'::timestamptz`,
    })
    const sameMillisecond = () => new Date("2020-01-01T00:00:00.123Z")
    const report = await reconcileIntents(h, { olderThanMs: 0, now: sameMillisecond })
    expect(report.examined).toBe(1)
    expect(await intentOf(refId)).toMatchObject({ state: "SUCCEEDED" })
    const justBefore = () => new Date("2020-01-01T00:00:00.122Z")
    expect((await reconcileIntents(h, { olderThanMs: 0, now: justBefore })).examined).toBe(0)
  })

  it("the audit trail's `to` takes a record stamped within that millisecond", async () => {
    const refId = randomUUID()
    await insertIntentRows(h.db, {
      staffEmail: "clock@example.com",
      staffRole: trader.role,
      operation: "create_conversion",
      profileId,
      refId,
      state: "FAILED",
      request: { ref_id: refId },
      createdAt: sql`'2020-01-01T00:00:00.123456Z'::timestamptz`,
    })
    const through = (to: string) => listAudit(h.db, { staff: "clock@example.com", to, limit: 10 })
    expect((await through("2020-01-01T00:00:00.123Z")).items.map((e) => e.ref_id)).toEqual([refId])
    expect((await through("2020-01-01T00:00:00.122Z")).items).toEqual([])
  })

  it("cancels a pending conversion, and a cancel of a settled one is the service's conflict", async () => {
    const created = await placeConversion(h, trader, {
      profile_id: profileId,
      amount: "3.00",
      source_asset: "USD",
      target_asset: "USDP",
      ref_id: randomUUID(),
    })
    const cancelled = await cancelConversion(h, trader, created.record.id)
    expect(cancelled.record.status).toBe("CANCELLED")
    expect(cancelled.replayed).toBe(false)
    const settledOne = await placeConversion(h, trader, {
      profile_id: profileId,
      amount: "4.00",
      source_asset: "USD",
      target_asset: "USDP",
      ref_id: randomUUID(),
    })
    await h.sandbox.settleDue()
    const error = await cancelConversion(h, trader, settledOne.record.id).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(UpstreamProblemError)
    expect((error as UpstreamProblemError).status).toBe(409)
    const audit = await listAudit(h.db, { operation: "cancel_conversion", limit: 10 })
    // A cancel is keyed by the conversion it cancels; its ref_id column stays empty.
    expect(audit.items.map((i) => [i.target_id, i.ref_id, i.state])).toEqual([
      [settledOne.record.id, null, "FAILED"],
      [created.record.id, null, "SUCCEEDED"],
    ])
    // The cancel that went through names the conversion's profile, its one attempt and what was asked.
    expect(audit.items[1]).toMatchObject({ profile_id: profileId, attempts: 1, staff_email: trader.email, request: { id: created.record.id } })
  })

  it("a refused cancel whose intent cannot be settled answers the service's conflict, and the failure is logged", async () => {
    const settledOne = await placeConversion(h, trader, { profile_id: profileId, amount: "4.00", source_asset: "USD", target_asset: "USDP", ref_id: randomUUID() })
    await h.sandbox.settleDue()
    const error = vi.spyOn(log, "error").mockImplementation(() => undefined)
    try {
      const refused = await cancelConversion(settlingFails(), trader, settledOne.record.id).catch((e: unknown) => e)
      expect(refused).toBeInstanceOf(UpstreamProblemError)
      expect((refused as UpstreamProblemError).status).toBe(409)
      const [intent] = await h.db.select().from(consoleIntents).where(eq(consoleIntents.targetId, settledOne.record.id))
      expect(intent?.state).toBe("PENDING")
      expect(error).toHaveBeenCalledWith("intent.settle_failed", { intentId: intent!.id, error: "Error: the database went away" })
      await settleIntent(h.db, intent!.id, { state: "FAILED", problem: { title: "refused (test)" }, attempts: 1 })
    } finally {
      error.mockRestore()
    }
  })

  it("the reconciler learns a cancel's outcome from the conversion the intent names", async () => {
    const created = await placeConversion(h, trader, {
      profile_id: profileId,
      amount: "5.00",
      source_asset: "USD",
      target_asset: "USDP",
      ref_id: randomUUID(),
    })
    await h.setFaults({ rules: [{ operation: "cancel", fault: "error", rate: 1, status: 503 }] })
    await cancelConversion(h, trader, created.record.id).catch(() => undefined)
    await h.setFaults({ rules: [] })
    const ofThisCancel = async () =>
      (await listAudit(h.db, { operation: "cancel_conversion", limit: 50 })).items.find((i) => i.target_id === created.record.id)
    expect(await ofThisCancel()).toMatchObject({ state: "UNKNOWN", ref_id: null })
    await reconcileIntents(h, { olderThanMs: 0 })
    // The 503 came before the service acted: the conversion is still CREATED, so the cancel failed.
    const learned = await ofThisCancel()
    expect(learned).toMatchObject({ state: "FAILED", ref_id: null })
    expect(learned?.problem?.detail).toBe("the conversion was not cancelled; it is CREATED")
  })

  const trials = Number(process.env.FAULT_TRIALS ?? 40)
  // A 429 trial waits out Retry-After (1 s): the full run by `npm run test:faults` takes minutes.
  it("randomized fault trials: no duplicates, nothing lost, every intent resolved after reconciliation", { timeout: 30_000 + trials * 2_000 }, async () => {
    const kinds: Omit<FaultRule, "operation" | "rate">[] = [
      { fault: "error", status: 503 },
      { fault: "error", status: 500 },
      { fault: "rate_limit" },
      { fault: "commit_then_fail", status: 503 },
      { fault: "commit_then_fail", status: 504 },
      { fault: "commit_then_fail", status: "drop" },
      { fault: "hang" },
    ]
    const refs: { refId: string; kind: "execution" | "conversion" }[] = []
    for (let trial = 0; trial < trials; trial++) {
      const kind = kinds[Math.floor(unitDraw("trial-kind", trial) * kinds.length)]!
      const onExecution = unitDraw("trial-op", trial) < 0.6
      const operation = onExecution ? "create_execution" : "create_conversion"
      await h.setFaults({ seed: trial + 1, rules: [{ operation, rate: 0.6, ...kind }] })
      const refId = randomUUID()
      refs.push({ refId, kind: onExecution ? "execution" : "conversion" })
      const attempt = onExecution
        ? heldQuote().then((q) => placeExecution(h, trader, profileId, { quote_id: q.id, base_amount: "0.0001", ref_id: refId }))
        : placeConversion(h, trader, { profile_id: profileId, amount: "1.00", source_asset: "USD", target_asset: "USDP", ref_id: refId })
      await attempt.catch(() => undefined)
    }
    await h.setFaults({ rules: [] })
    await reconcileIntents(h, { olderThanMs: 0 })
    let duplicates = 0
    let lost = 0
    for (const { refId, kind } of refs) {
      const intent = await intentOf(refId)
      expect(intent?.state === "SUCCEEDED" || intent?.state === "FAILED").toBe(true)
      const records =
        kind === "execution" ? await executionsWithRef(refId) : (await h.upstream.listConversions({ ref_id: refId })).items
      if (records.length > 1) duplicates += 1
      if (intent?.state === "SUCCEEDED" && records[0]?.id !== intent.recordId) lost += 1
      if (intent?.state === "FAILED" && records.length > 0) lost += 1
    }
    expect({ duplicates, lost }).toEqual({ duplicates: 0, lost: 0 })
  })
})

/**
 * Exactly once for conversions, through either of the service's conversion APIs: the
 * same faults, concurrency and reconciler guarantees whichever one places the record.
 */
describe.each(testDrivers().flatMap((driver) => CONVERSIONS_APIS.map((api) => [api, driver] as const)))(
  "conversions exactly once through %s on %s",
  (api, driver) => {
    let h: ConsoleHarness
    let profileId: string
    let inUse: ConversionsApi = api
    const createOperation = api === "orchestrations" ? "create_orchestration" : "create_conversion"

    beforeAll(async () => {
      h = await createConsoleHarness({ driver, timeoutMs: 400, conversionsApi: () => Promise.resolve(inUse) })
      profileId = (await h.upstream.listProfiles()).items[0]!.id
    })
    afterEach(async () => {
      inUse = api
      await h.setFaults({ rules: [] })
    })
    afterAll(async () => {
      await h?.close()
    })

    const request = (refId: string, amount = "1.00") => ({ profile_id: profileId, amount, source_asset: "USD" as const, target_asset: "USDP" as const, ref_id: refId })

    /** Every record of the profile carrying `refId`, read page by page (not through a ref_id filter). */
    async function recordsWithRef(refId: string, via: ConversionsApi = api): Promise<Conversion[]> {
      const found: Conversion[] = []
      let cursor: string | undefined
      do {
        const page = await h.upstream.conversionsVia(via).listConversions({ profile_id: profileId, limit: 1000, page_cursor: cursor })
        found.push(...page.items.filter((c) => c.ref_id === refId))
        cursor = page.next_page_cursor || undefined
      } while (cursor)
      return found
    }

    async function intentOf(refId: string) {
      const [row] = await h.db.select().from(consoleIntents).where(eq(consoleIntents.refId, refId))
      return row
    }

    it("a create meeting commit-then-drop is placed once, the intent SUCCEEDED and naming the API", async () => {
      await h.setFaults({ rules: [{ operation: createOperation, fault: "commit_then_fail", rate: 1, status: "drop" }] })
      const refId = randomUUID()
      const placed = await placeConversion(h, trader, request(refId, "12.34"))
      expect(placed.replayed).toBe(true)
      expect(placed.record).toMatchObject({ ref_id: refId, profile_id: profileId, amount: "12.34", source_asset: "USD", target_asset: "USDP" })
      expect((await recordsWithRef(refId)).map((c) => c.id)).toEqual([placed.record.id])
      expect(await intentOf(refId)).toMatchObject({ state: "SUCCEEDED", recordId: placed.record.id, upstreamApi: api })
    })

    it("an outage past every retry after the record was stored: UNKNOWN, then the reconciler finds the one record", async () => {
      await h.setFaults({
        seed: seedFor(createOperation, 0.8, [false, true, true]),
        rules: [
          { operation: createOperation, fault: "error", rate: 0.8, status: 503 },
          { operation: createOperation, fault: "commit_then_fail", rate: 1, status: 503 },
        ],
      })
      const refId = randomUUID()
      await expect(placeConversion(h, trader, request(refId, "2.00"))).rejects.toThrow()
      expect((await intentOf(refId))?.state).toBe("UNKNOWN")
      await h.setFaults({ rules: [] })
      expect((await reconcileIntents(h, { olderThanMs: 0 })).unresolved).toBe(0)
      const records = await recordsWithRef(refId)
      expect(records).toHaveLength(1)
      expect(await intentOf(refId)).toMatchObject({ state: "SUCCEEDED", recordId: records[0]!.id })
    })

    it("a refusal (Insufficient Funds) ends FAILED with the service's problem and places nothing", async () => {
      const refId = randomUUID()
      const error = await placeConversion(h, trader, { ...request(refId), amount: "999999.00", source_asset: "USDG", target_asset: "USD" }).catch(
        (e: unknown) => e,
      )
      expect(error).toBeInstanceOf(UpstreamProblemError)
      expect((error as UpstreamProblemError).status).toBe(403)
      expect(await intentOf(refId)).toMatchObject({ state: "FAILED", upstreamApi: api })
      expect(await recordsWithRef(refId)).toEqual([])
    })

    it("60 identical submissions spread over 3 console instances make one record, and every answer carries its id", async () => {
      const refId = randomUUID()
      const instances = [h, h.anotherInstance(), h.anotherInstance()]
      const results = await Promise.all(Array.from({ length: 60 }, (_, i) => placeConversion(instances[i % 3]!, trader, request(refId, "3.00"))))
      const ids = new Set(results.map((r) => r.record.id))
      expect(ids.size).toBe(1)
      expect((await recordsWithRef(refId)).map((c) => c.id)).toEqual([...ids])
    })

    it("the reconciler resolves an intent whose request never left (a crash after the write-ahead row)", async () => {
      const refId = randomUUID()
      await insertIntentRows(h.db, {
        staffEmail: trader.email,
        staffRole: trader.role,
        operation: "create_conversion",
        profileId,
        refId,
        upstreamApi: api,
        request: request(refId, "5.00"),
      })
      await reconcileIntents(h, { olderThanMs: 0 })
      const records = await recordsWithRef(refId)
      expect(records).toHaveLength(1)
      expect(await intentOf(refId)).toMatchObject({ state: "SUCCEEDED", recordId: records[0]!.id })
    })

    it("an intent is reconciled through the API that placed it, even after the desk switched", async () => {
      const other: ConversionsApi = api === "orchestrations" ? "stablecoin-conversions" : "orchestrations"
      await h.setFaults({ rules: [{ operation: createOperation, fault: "error", rate: 1, status: 503 }] })
      const refId = randomUUID()
      await expect(placeConversion(h, trader, request(refId, "6.00"))).rejects.toThrow()
      await h.setFaults({ rules: [] })
      inUse = other
      await reconcileIntents(h, { olderThanMs: 0 })
      const records = await recordsWithRef(refId)
      expect(records).toHaveLength(1)
      expect(await recordsWithRef(refId, other)).toEqual([])
      expect(await intentOf(refId)).toMatchObject({ state: "SUCCEEDED", recordId: records[0]!.id, upstreamApi: api })
    })

    it("a retry after the desk switched APIs goes where the first went: the same record, nothing placed through the other", async () => {
      const other: ConversionsApi = api === "orchestrations" ? "stablecoin-conversions" : "orchestrations"
      const refId = randomUUID()
      const first = await placeConversion(h, trader, request(refId, "7.00"))
      inUse = other
      const again = await placeConversion(h, trader, request(refId, "7.00"))
      expect(again).toMatchObject({ replayed: true, intentId: first.intentId, record: { id: first.record.id, ref_id: refId } })
      expect(await recordsWithRef(refId, other)).toEqual([])
      expect((await recordsWithRef(refId)).map((c) => c.id)).toEqual([first.record.id])
      // A first attempt that failed is sent again through its own API too.
      const failedRef = randomUUID()
      inUse = api
      await h.setFaults({ rules: [{ operation: createOperation, fault: "error", rate: 1, status: 503 }] })
      await expect(placeConversion(h, trader, request(failedRef, "8.00"))).rejects.toThrow()
      await h.setFaults({ rules: [] })
      inUse = other
      const retried = await placeConversion(h, trader, request(failedRef, "8.00"))
      expect(retried.record).toMatchObject({ ref_id: failedRef })
      expect(await recordsWithRef(failedRef, other)).toEqual([])
      expect(await intentOf(failedRef)).toMatchObject({ state: "SUCCEEDED", recordId: retried.record.id, upstreamApi: api })
    })

    const trials = Math.ceil(Number(process.env.FAULT_TRIALS ?? 40) / 2)
    it("randomized fault trials: no duplicates, nothing lost, every intent resolved", { timeout: 30_000 + trials * 2_000 }, async () => {
      const kinds: Omit<FaultRule, "operation" | "rate">[] = [
        { fault: "error", status: 503 },
        { fault: "rate_limit" },
        { fault: "commit_then_fail", status: 503 },
        { fault: "commit_then_fail", status: "drop" },
        { fault: "hang" },
      ]
      const refs: string[] = []
      for (let trial = 0; trial < trials; trial++) {
        const kind = kinds[Math.floor(unitDraw("conversion-trial-kind", trial) * kinds.length)]!
        await h.setFaults({ seed: trial + 1, rules: [{ operation: createOperation, rate: 0.6, ...kind }] })
        const refId = randomUUID()
        refs.push(refId)
        await placeConversion(h, trader, request(refId)).catch(() => undefined)
      }
      await h.setFaults({ rules: [] })
      await reconcileIntents(h, { olderThanMs: 0 })
      let duplicates = 0
      let lost = 0
      for (const refId of refs) {
        const intent = await intentOf(refId)
        expect(intent?.state === "SUCCEEDED" || intent?.state === "FAILED").toBe(true)
        const records = await recordsWithRef(refId)
        if (records.length > 1) duplicates += 1
        if (intent?.state === "SUCCEEDED" && records[0]?.id !== intent.recordId) lost += 1
        if (intent?.state === "FAILED" && records.length > 0) lost += 1
      }
      expect({ duplicates, lost }).toEqual({ duplicates: 0, lost: 0 })
    })

    if (api === "orchestrations") {
      it("offers no cancel: the console refuses it before asking the service, and writes no intent", async () => {
        const placed = await placeConversion(h, trader, request(randomUUID(), "4.00"))
        const error = await cancelConversion(h, trader, placed.record.id).catch((e: unknown) => e)
        expect(error).toBeInstanceOf(HttpProblem)
        expect((error as HttpProblem).problem.status).toBe(409)
        expect((error as HttpProblem).problem).toMatchObject({
          code: "not_cancellable",
          detail: "Conversions placed through the Orchestrations API cannot be cancelled: the service has no cancel for them.",
        })
        expect((await listAudit(h.db, { operation: "cancel_conversion", limit: 50 })).items.filter((i) => i.target_id === placed.record.id)).toEqual([])
        await h.sandbox.settleDue()
        expect((await h.upstream.getConversion(placed.record.id)).status).toBe("COMPLETED")
      })
    }
  },
)
