import { and, eq } from "drizzle-orm"
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest"
import type { ConsoleDeps } from "@/lib/console/operations"
import { reconcileIntents } from "@/lib/console/reconciler"
import type { Database } from "@/lib/db/client"
import { env } from "@/lib/env"
import { log } from "@/lib/log"
import { consoleIntents, consoleNotifications } from "@/lib/db/schema"
import type { Conversion, QuoteExecution } from "@/lib/schemas/records"
import { RateLimitedError, UpstreamConfigError, UpstreamProblemError, type UpstreamClient } from "@/lib/upstream"
import { createTestDatabase } from "@/test/db"
import { type IntentRow, insertIntentRows } from "@/test/intents"

/**
 * The reconciler against a scripted service: what it asks, in which order, and how each
 * answer (or failure to answer) settles an intent. The sandbox-backed scenarios (faults,
 * a record placed before an outage) are in operations.test.ts.
 */

const T0 = new Date("2026-03-01T12:00:00.000Z")
const at = (ms: number) => () => new Date(T0.getTime() + ms)
/** After the wall clock: a settled intent is stamped with the real time, so a second pass looks later. */
const later = () => new Date(Date.now() + 3_600_000)
const PROFILE = "profile-1"

interface Script {
  executions?: (query: Record<string, unknown>) => Promise<{ items: QuoteExecution[]; next_page_cursor?: string }>
  createExecution?: (body: Record<string, unknown>) => Promise<{ record: QuoteExecution; attempts: number }>
  conversions?: (query: Record<string, unknown>) => Promise<{ items: Conversion[] }>
  createConversion?: (body: Record<string, unknown>) => Promise<{ record: Conversion; attempts: number }>
  getConversion?: (id: string) => Promise<Conversion>
}

const nothing = () => Promise.reject(new Error("not expected in this test"))

function execution(over: Partial<QuoteExecution> = {}): QuoteExecution {
  return {
    id: "exec-1",
    profile_id: PROFILE,
    quote_id: "quote-1",
    ref_id: "ref-x",
    status: "SETTLED",
    market: "BTCUSD",
    side: "BUY",
    price: "60000.00",
    base_amount: "0.001",
    base_asset: "BTC",
    quote_amount: "60.00",
    quote_asset: "USD",
    created_at: "2026-03-01T12:00:00Z",
    ...over,
  }
}

function conversion(over: Partial<Conversion> = {}): Conversion {
  return { id: "conv-1", profile_id: PROFILE, amount: "5.00", source_asset: "USD", target_asset: "USDG", status: "SETTLED", ref_id: "ref-c", ...over }
}

describe("the reconciler", () => {
  let database: Database
  let calls: string[]
  let apis: string[]
  beforeAll(async () => {
    database = await createTestDatabase("pglite")
  })
  afterAll(async () => {
    await database?.close()
  })
  beforeEach(async () => {
    await database.db.delete(consoleIntents)
    calls = []
    apis = []
    // Quiet: the log lines are asserted where they matter.
    vi.spyOn(log, "info").mockImplementation(() => undefined)
    vi.spyOn(log, "error").mockImplementation(() => undefined)
  })
  afterEach(() => {
    vi.restoreAllMocks()
  })

  function deps(script: Script): ConsoleDeps {
    const conversions = {
      listConversions: (query: Record<string, unknown>) => {
        calls.push(`listConversions ${JSON.stringify(query)}`)
        return (script.conversions ?? nothing)(query)
      },
      createConversion: (body: Record<string, unknown>) => {
        calls.push(`createConversion ${JSON.stringify(body)}`)
        return (script.createConversion ?? nothing)(body)
      },
      getConversion: (id: string) => {
        calls.push(`getConversion ${id}`)
        return (script.getConversion ?? nothing)(id)
      },
    }
    const upstream = {
      listQuoteExecutions: (profileId: string, query: Record<string, unknown>) => {
        calls.push(`listQuoteExecutions ${profileId} ${JSON.stringify(query)}`)
        return (script.executions ?? nothing)(query)
      },
      createQuoteExecution: (profileId: string, body: Record<string, unknown>) => {
        calls.push(`createQuoteExecution ${profileId} ${JSON.stringify(body)}`)
        return (script.createExecution ?? nothing)(body)
      },
      conversionsVia: (api: string) => {
        apis.push(api)
        return conversions
      },
    }
    return { db: database.db, upstream: upstream as unknown as UpstreamClient }
  }

  const staff = { staffEmail: "trader@example.com", staffRole: "trader" as const }

  async function conversionIntent(over: Partial<IntentRow> = {}) {
    const [row] = await insertIntentRows(database.db, {
      ...staff,
      operation: "create_conversion",
      profileId: PROFILE,
      refId: "ref-c",
      state: "UNKNOWN",
      request: { profile_id: PROFILE, amount: "5.00", source_asset: "USD", target_asset: "USDG", ref_id: "ref-c" },
      createdAt: T0,
      updatedAt: T0,
      ...over,
    })
    return row!
  }

  async function executionIntent(over: Partial<IntentRow> = {}) {
    const [row] = await insertIntentRows(database.db, {
      ...staff,
      operation: "create_execution",
      profileId: PROFILE,
      refId: "ref-x",
      state: "UNKNOWN",
      request: { profile_id: PROFILE, quote_id: "quote-1", base_amount: "0.001", ref_id: "ref-x" },
      createdAt: T0,
      updatedAt: T0,
      ...over,
    })
    return row!
  }

  async function stateOf(id: string) {
    const [row] = await database.db.select().from(consoleIntents).where(eq(consoleIntents.id, id))
    return row!
  }

  const found = { conversions: () => Promise.resolve({ items: [conversion()] }) }

  it("leaves an intent alone until it has been untouched for 30 s, then takes it", async () => {
    // RECONCILE_AFTER_MS unset: its default.
    expect(env().reconcileAfterMs).toBe(30_000)
    const intent = await conversionIntent()
    expect(await reconcileIntents(deps(found), { now: at(29_999) })).toMatchObject({ examined: 0 })
    expect(calls).toEqual([])
    expect((await stateOf(intent.id)).state).toBe("UNKNOWN")
    expect(await reconcileIntents(deps(found), { now: at(30_000) })).toEqual({ examined: 1, resolved: 1, succeeded: 1, failed: 0, unresolved: 0 })
    expect(await stateOf(intent.id)).toMatchObject({ state: "SUCCEEDED", recordId: "conv-1", recordStatus: "SETTLED" })
  })

  it("counts the age from the caller's olderThanMs: an intent still in flight is never sent again", async () => {
    const intent = await conversionIntent({ state: "PENDING" })
    expect((await reconcileIntents(deps(found), { olderThanMs: 60_000, now: at(59_999) })).examined).toBe(0)
    expect((await reconcileIntents(deps(found), { olderThanMs: 60_000, now: at(-1) })).examined).toBe(0)
    expect(calls).toEqual([])
    expect((await reconcileIntents(deps(found), { olderThanMs: 60_000, now: at(60_000) })).examined).toBe(1)
    expect((await stateOf(intent.id)).state).toBe("SUCCEEDED")
  })

  it("takes the least recently tried first, at most `limit`, and only PENDING or UNKNOWN ones", async () => {
    const ids = []
    for (const [i, ref] of ["ref-b", "ref-a", "ref-c"].entries()) {
      const intent = await conversionIntent({
        refId: ref,
        request: { profile_id: PROFILE, amount: "5.00", source_asset: "USD", target_asset: "USDG", ref_id: ref },
        updatedAt: new Date(T0.getTime() + i * 1000),
      })
      ids.push(intent.id)
    }
    await conversionIntent({ refId: "ref-done", state: "SUCCEEDED", updatedAt: new Date(T0.getTime() - 5000) })
    await conversionIntent({ refId: "ref-failed", state: "FAILED", updatedAt: new Date(T0.getTime() - 5000) })
    const none = { conversions: () => Promise.resolve({ items: [] }), createConversion: () => Promise.reject(new RateLimitedError(5)) }
    expect(await reconcileIntents(deps(none), { limit: 2, now: at(3_600_000) })).toEqual({ examined: 2, resolved: 0, succeeded: 0, failed: 0, unresolved: 2 })
    expect(calls.filter((c) => c.startsWith("listConversions")).map((c) => (JSON.parse(c.slice("listConversions ".length)) as { ref_id: string }).ref_id)).toEqual([
      "ref-b",
      "ref-a",
    ])
    calls = []
    expect((await reconcileIntents(deps(none), { now: later })).examined).toBe(3)
  })

  it("a rate limit or a refused token on the create sent again leaves the intent UNKNOWN: nothing was learned", async () => {
    for (const refusal of [new RateLimitedError(30), new UpstreamConfigError("the service refused the console's token")]) {
      await database.db.delete(consoleIntents)
      const intent = await conversionIntent()
      const script = { conversions: () => Promise.resolve({ items: [] }), createConversion: () => Promise.reject(refusal) }
      expect(await reconcileIntents(deps(script), { now: at(60_000) })).toEqual({ examined: 1, resolved: 0, succeeded: 0, failed: 0, unresolved: 1 })
      const row = await stateOf(intent.id)
      expect(row.state).toBe("UNKNOWN")
      expect(row.resolvedAt).toBeNull()
    }
  })

  it("a look-up the service refuses leaves the intent UNKNOWN; its refusal of the create itself ends it FAILED", async () => {
    const intent = await conversionIntent()
    const refused = new UpstreamProblemError({ type: "about:blank", title: "Bad Request", status: 400, detail: "unknown parameter" })
    expect((await reconcileIntents(deps({ conversions: () => Promise.reject(refused) }), { now: at(60_000) })).unresolved).toBe(1)
    expect((await stateOf(intent.id)).state).toBe("UNKNOWN")

    const insufficient = new UpstreamProblemError({ type: "https://developer.paxos.com/docs/v2/problems/insufficient-funds", title: "Insufficient Funds", status: 403 })
    const script = { conversions: () => Promise.resolve({ items: [] }), createConversion: () => Promise.reject(insufficient) }
    expect(await reconcileIntents(deps(script), { now: later })).toEqual({ examined: 1, resolved: 1, succeeded: 0, failed: 1, unresolved: 0 })
    const row = await stateOf(intent.id)
    expect(row).toMatchObject({ state: "FAILED", problem: { status: 403, title: "Insufficient Funds" } })
    expect(row.resolvedAt).not.toBeNull()
  })

  it("an outcome it cannot learn is told once; learned on a later run, that notification is resolved as found placed", async () => {
    const intent = await conversionIntent()
    const toldOf = () =>
      database.db.select().from(consoleNotifications).where(and(eq(consoleNotifications.kind, "outcome_unknown"), eq(consoleNotifications.subject, intent.id)))
    const refused = new UpstreamProblemError({ type: "about:blank", title: "Bad Request", status: 400, detail: "unknown parameter" })
    for (let run = 1; run <= 2; run++) await reconcileIntents(deps({ conversions: () => Promise.reject(refused) }), { now: at(60_000 * run) })
    const told = await toldOf()
    expect(told).toHaveLength(1)
    expect(told[0]).toMatchObject({ resolvedAt: null, resolvedBy: null })
    expect(await reconcileIntents(deps(found), { now: later })).toMatchObject({ succeeded: 1, unresolved: 0 })
    const [resolved] = await toldOf()
    expect(resolved!.resolvedAt).not.toBeNull()
    expect(resolved!.resolvedBy).toBe("the reconciler")
  })

  it("a conversion not found is sent again with its ref_id, through the API that first took it", async () => {
    const stable = await conversionIntent()
    const script = {
      conversions: () => Promise.resolve({ items: [] }),
      createConversion: (body: Record<string, unknown>) => Promise.resolve({ record: conversion({ id: `new-${String(body.ref_id)}`, status: "PENDING" }), attempts: 2 }),
    }
    await reconcileIntents(deps(script), { now: at(60_000) })
    expect(apis).toEqual(["stablecoin-conversions"])
    expect(calls).toEqual([
      `listConversions ${JSON.stringify({ ref_id: "ref-c", profile_id: PROFILE, limit: 1 })}`,
      `createConversion ${JSON.stringify({ profile_id: PROFILE, amount: "5.00", source_asset: "USD", target_asset: "USDG", ref_id: "ref-c" })}`,
    ])
    expect(await stateOf(stable.id)).toMatchObject({ state: "SUCCEEDED", recordId: "new-ref-c", recordStatus: "PENDING", attempts: 3 })

    await database.db.delete(consoleIntents)
    apis = []
    await conversionIntent({ upstreamApi: "orchestrations" })
    await reconcileIntents(deps(script), { now: at(60_000) })
    expect(apis).toEqual(["orchestrations"])
  })

  it("a conversion found under the ref_id with another amount is someone else's: FAILED as Already Exists, nothing sent", async () => {
    const intent = await conversionIntent()
    const theirs = { conversions: () => Promise.resolve({ items: [conversion({ id: "conv-9", amount: "6.00" })] }) }
    expect((await reconcileIntents(deps(theirs), { now: at(60_000) })).failed).toBe(1)
    expect(calls.some((c) => c.startsWith("createConversion"))).toBe(false)
    const row = await stateOf(intent.id)
    expect(row.recordId).toBeNull()
    expect(row.problem).toEqual({
      type: "https://developer.paxos.com/docs/v2/problems/already-exists",
      title: "Already Exists",
      status: 409,
      code: "already_exists",
      detail: "the ref_id belongs to another conversion (conv-9)",
      meta: { existing: conversion({ id: "conv-9", amount: "6.00" }) },
    })
  })

  it("an execution is looked for page by page since 5 minutes before its intent, oldest first", async () => {
    const intent = await executionIntent()
    const pages = [{ items: [execution({ id: "other", ref_id: "ref-other" })], next_page_cursor: "page-2" }, { items: [execution()] }]
    const script = { executions: () => Promise.resolve(pages.shift()!) }
    expect((await reconcileIntents(deps(script), { now: at(60_000) })).succeeded).toBe(1)
    const begin = "2026-03-01T11:55:00.000Z"
    expect(calls).toEqual([
      `listQuoteExecutions ${PROFILE} ${JSON.stringify({ "created_at.begin": begin, order: "ASC", limit: 1000 })}`,
      `listQuoteExecutions ${PROFILE} ${JSON.stringify({ "created_at.begin": begin, order: "ASC", limit: 1000, page_cursor: "page-2" })}`,
    ])
    expect(await stateOf(intent.id)).toMatchObject({ state: "SUCCEEDED", recordId: "exec-1", recordStatus: "SETTLED", attempts: 1 })
  })

  it("an execution not found (an empty cursor ends the pages) is sent again without the console's profile_id field", async () => {
    const intent = await executionIntent()
    const script = {
      executions: () => Promise.resolve({ items: [], next_page_cursor: "" }),
      createExecution: () => Promise.resolve({ record: execution({ id: "exec-new", status: "CREATED" }), attempts: 1 }),
    }
    await reconcileIntents(deps(script), { now: at(60_000) })
    expect(calls).toHaveLength(2)
    expect(calls[1]).toBe(`createQuoteExecution ${PROFILE} ${JSON.stringify({ quote_id: "quote-1", ref_id: "ref-x", base_amount: "0.001" })}`)
    expect(await stateOf(intent.id)).toMatchObject({ state: "SUCCEEDED", recordId: "exec-new", recordStatus: "CREATED", attempts: 2 })
  })

  it("an execution under the ref_id for another amount is someone else's: FAILED, nothing sent", async () => {
    const intent = await executionIntent()
    const script = { executions: () => Promise.resolve({ items: [execution({ id: "exec-9", base_amount: "0.002" })] }) }
    await reconcileIntents(deps(script), { now: at(60_000) })
    expect(calls.some((c) => c.startsWith("createQuoteExecution"))).toBe(false)
    expect(await stateOf(intent.id)).toMatchObject({ state: "FAILED", recordId: null, problem: { code: "already_exists", detail: "the ref_id belongs to another execution (exec-9)" } })
  })

  it("stops looking after 50 pages and keeps the intent UNKNOWN", async () => {
    const intent = await executionIntent()
    const script = { executions: () => Promise.resolve({ items: [execution({ id: "other", ref_id: "ref-other" })], next_page_cursor: "more" }) }
    expect((await reconcileIntents(deps(script), { now: at(60_000) })).unresolved).toBe(1)
    expect(calls).toHaveLength(50)
    expect(await stateOf(intent.id)).toMatchObject({ state: "UNKNOWN", problem: { code: "internal_error" } })
  })

  it("an intent whose request lacks its profile_id or ref_id stays UNKNOWN and nothing is asked", async () => {
    const noProfile = await executionIntent({ request: { quote_id: "quote-1", base_amount: "0.001", ref_id: "ref-x" } })
    const noRef = await executionIntent({ refId: "ref-y", request: { profile_id: PROFILE, quote_id: "quote-1", base_amount: "0.001" } })
    const noConversionRef = await conversionIntent({ request: { profile_id: PROFILE, amount: "5.00", source_asset: "USD", target_asset: "USDG" } })
    expect((await reconcileIntents(deps({}), { now: at(60_000) })).unresolved).toBe(3)
    expect(calls).toEqual([])
    for (const id of [noProfile.id, noRef.id, noConversionRef.id]) expect((await stateOf(id)).state).toBe("UNKNOWN")
  })

  it("a cancel is settled by the conversion it names: CANCELLED succeeds, any other status fails", async () => {
    const cancel = (targetId: string) =>
      insertIntentRows(database.db, { ...staff, operation: "cancel_conversion", profileId: null, targetId, state: "UNKNOWN", request: {}, updatedAt: T0 })
    const [cancelled] = await cancel("conv-1")
    const [settled] = await cancel("conv-2")
    const script = { getConversion: (id: string) => Promise.resolve(conversion({ id, status: id === "conv-1" ? "CANCELLED" : "SETTLED" })) }
    expect(await reconcileIntents(deps(script), { now: at(60_000) })).toEqual({ examined: 2, resolved: 2, succeeded: 1, failed: 1, unresolved: 0 })
    expect(await stateOf(cancelled!.id)).toMatchObject({ state: "SUCCEEDED", recordId: "conv-1", recordStatus: "CANCELLED", profileId: PROFILE })
    expect(await stateOf(settled!.id)).toMatchObject({
      state: "FAILED",
      problem: { code: "state_conflict", detail: "the conversion was not cancelled; it is SETTLED" },
    })
  })

  it("a policy change is never unresolved; one found so stays UNKNOWN", async () => {
    const [policy] = await insertIntentRows(database.db, { ...staff, operation: "update_policy", profileId: null, targetId: "policy", state: "PENDING", request: {}, updatedAt: T0 })
    expect((await reconcileIntents(deps({}), { now: at(60_000) })).unresolved).toBe(1)
    expect(await stateOf(policy!.id)).toMatchObject({ state: "UNKNOWN", problem: { code: "internal_error" } })
  })

  it("logs a run that examined something, and the console's own failure on an intent; a service's refusal is not an error", async () => {
    const info = vi.spyOn(log, "info").mockImplementation(() => undefined)
    const error = vi.spyOn(log, "error").mockImplementation(() => undefined)
    await reconcileIntents(deps({}), { now: at(60_000) })
    expect(info).not.toHaveBeenCalled()

    const intent = await executionIntent()
    const endless = { executions: () => Promise.resolve({ items: [], next_page_cursor: "more" }) }
    await reconcileIntents(deps(endless), { now: at(60_000) })
    expect(info).toHaveBeenCalledWith("reconciler.ran", { examined: 1, resolved: 0, succeeded: 0, failed: 0, unresolved: 1 })
    expect(error).toHaveBeenCalledWith("reconciler.intent_failed", {
      intentId: intent.id,
      error: "Error: more than 50000 executions since the intent; look-up stopped",
    })

    error.mockClear()
    const refused = { executions: () => Promise.reject(new RateLimitedError(5)) }
    await reconcileIntents(deps(refused), { now: later })
    expect(error).not.toHaveBeenCalled()
  })
})
