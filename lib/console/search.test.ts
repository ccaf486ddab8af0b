import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Staff } from "@/lib/auth/roles"
import { openIntent, recordRefusal, settleIntent } from "@/lib/console/intents"
import { SEARCH_MAX_SERVICE_CALLS, type SearchUpstream, searchAnything } from "@/lib/console/search"
import { searchQuerySchema } from "@/lib/schemas/search"
import { UpstreamUnavailableError } from "@/lib/upstream"
import { type ConsoleHarness, createConsoleHarness, placeConversion, placeExecution } from "@/test/console"
import { testDrivers } from "@/test/db"

const trader: Staff = { email: "trader@example.com", role: "trader" }
const CALLS = ["listProfiles", "getConversion", "listConversions", "getQuoteExecution", "getTransfer", "listTransfers"] as const

/** The harness's client, counting service calls, with some calls made to fail like an outage. */
function counted(upstream: SearchUpstream, failing: Partial<Record<(typeof CALLS)[number], boolean>> = {}) {
  const calls: string[] = []
  const wrapped = new Proxy(upstream, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown
      if (typeof value !== "function") return value
      return (...args: unknown[]) => {
        if ((CALLS as readonly string[]).includes(String(name))) {
          calls.push(String(name))
          if (failing[name as (typeof CALLS)[number]]) {
            return Promise.reject(new UpstreamUnavailableError("down", { outcome: "rejected", mutating: false }))
          }
        }
        return (value as (...a: unknown[]) => unknown).apply(target, args)
      }
    },
  })
  return { upstream: wrapped, calls }
}

describe.each(testDrivers())("searchAnything against the sandbox on %s", (driver) => {
  let h: ConsoleHarness
  let profileId: string

  beforeAll(async () => {
    h = await createConsoleHarness({ driver })
    profileId = (await h.upstream.listProfiles()).items[0]!.id
  })
  afterAll(async () => {
    await h?.close()
  })

  async function buyQuoteId(): Promise<string> {
    const quote = (await h.upstream.listQuotes(["BTCUSD"])).find((q) => q.side === "BUY")
    if (!quote) throw new Error("no BUY quote")
    return quote.id
  }

  async function consoleExecution(refId = randomUUID()) {
    return (await placeExecution(h, trader, profileId, { quote_id: await buyQuoteId(), base_amount: "0.001", ref_id: refId })).record
  }

  async function consoleConversion(refId = randomUUID()) {
    return (await placeConversion(h, trader, { profile_id: profileId, amount: "3.00", source_asset: "USD", target_asset: "USDP", ref_id: refId })).record
  }

  it("finds an execution the console placed by its ref_id in the intent log, with its fresh status, without searching the service", async () => {
    const execution = await consoleExecution()
    const counter = counted(h.upstream)
    const result = await searchAnything({ db: h.db, upstream: counter.upstream }, execution.ref_id!)
    expect(result.matches).toEqual([
      expect.objectContaining({
        kind: "execution",
        id: execution.id,
        matched_by: "ref_id",
        found_in: "intent_log",
        profile_id: profileId,
        href: `/executions/${profileId}/${execution.id}`,
        amount: { value: execution.base_amount, asset: "BTC" },
        summary: "BUY BTCUSD",
      }),
    ])
    expect(result.matches[0]!.intent_id).toMatch(/^[0-9a-f-]{36}$/)
    expect(result.partial).toBe(false)
    // One call: the record's current status. The service's search was not needed.
    expect(counter.calls).toEqual(["getQuoteExecution"])
    expect(result.sources.find((s) => s.source === "service_executions")?.state).toBe("skipped")
  })

  it("finds an execution by its id and a conversion by its id or ref_id, placed by the console", async () => {
    const execution = await consoleExecution()
    const byId = await searchAnything(h, execution.id)
    expect(byId.matches.map((m) => [m.kind, m.id, m.matched_by])).toEqual([["execution", execution.id, "id"]])

    const conversion = await consoleConversion()
    for (const [q, matchedBy] of [
      [conversion.id, "id"],
      [conversion.ref_id!, "ref_id"],
    ] as const) {
      const found = await searchAnything(h, q)
      expect(found.matches).toEqual([
        expect.objectContaining({ kind: "conversion", id: conversion.id, matched_by: matchedBy, href: `/conversions/${conversion.id}`, amount: { value: conversion.amount!, asset: "USD" } }),
      ])
    }
  })

  it("finds records another client of the service placed: a conversion by ref_id, an execution by id in some profile", async () => {
    const refId = `other-client-${randomUUID()}`
    const conversion = (await h.upstream.createConversion({ profile_id: profileId, amount: "2.00", source_asset: "USD", target_asset: "USDG", ref_id: refId })).record
    const byRef = await searchAnything(h, refId)
    expect(byRef.matches).toEqual([expect.objectContaining({ kind: "conversion", id: conversion.id, matched_by: "ref_id", found_in: "service", intent_id: null })])

    const execution = (await h.upstream.createQuoteExecution(profileId, { quote_id: await buyQuoteId(), base_amount: "0.001", ref_id: randomUUID() })).record
    const counter = counted(h.upstream)
    const byId = await searchAnything({ db: h.db, upstream: counter.upstream }, execution.id)
    expect(byId.matches).toEqual([expect.objectContaining({ kind: "execution", id: execution.id, matched_by: "id", found_in: "service", profile_id: profileId })])
    expect(byId.sources.find((s) => s.source === "service_executions")).toMatchObject({ state: "searched" })
    expect(counter.calls.length).toBeLessThanOrEqual(SEARCH_MAX_SERVICE_CALLS)
  })

  it("finds the executions that used a quote id, and a profile by its id", async () => {
    const execution = await consoleExecution()
    const byQuote = await searchAnything(h, execution.quote_id)
    // Earlier tests executed the same held quote: each of those executions used it too.
    expect(byQuote.matches).toContainEqual(expect.objectContaining({ kind: "execution", id: execution.id, matched_by: "quote_id" }))
    for (const m of byQuote.matches) expect(m).toMatchObject({ kind: "execution", matched_by: "quote_id" })

    const profile = await searchAnything(h, profileId)
    expect(profile.matches).toEqual([expect.objectContaining({ kind: "profile", id: profileId, found_in: "service", href: "/executions" })])
  })

  it("lists several matches when one ref_id names an execution and a conversion", async () => {
    const refId = randomUUID()
    const execution = await consoleExecution(refId)
    const conversion = await consoleConversion(refId)
    const result = await searchAnything(h, refId)
    expect(result.matches.map((m) => `${m.kind}:${m.id}`).sort()).toEqual([`conversion:${conversion.id}`, `execution:${execution.id}`].sort())
    for (const m of result.matches) {
      expect(m).toMatchObject({ profile_id: profileId, matched_by: "ref_id" })
      expect(m.amount?.value).toBeTruthy()
      expect(m.status).toBeTruthy()
      expect(m.time).toBeTruthy()
    }
  })

  it("finds an intent that never became a record (refused), by its ref_id and by its own id", async () => {
    const refId = randomUUID()
    const { intent } = await openIntent(h.db, { staff: trader, operation: "create_conversion", profileId, refId, request: { amount: "9.00", source_asset: "USD", target_asset: "USDP", ref_id: refId } })
    await settleIntent(h.db, intent.id, { state: "FAILED", problem: { title: "Unprocessable", status: 422, detail: "insufficient funds" }, attempts: 1 })
    for (const [q, matchedBy] of [
      [refId, "ref_id"],
      [intent.id, "intent_id"],
    ] as const) {
      const result = await searchAnything(h, q)
      expect(result.matches).toEqual([
        expect.objectContaining({ kind: "intent", id: intent.id, matched_by: matchedBy, href: `/intents/${intent.id}`, status: "FAILED", amount: { value: "9.00", asset: "USD" } }),
      ])
    }
  })

  it("finds a record by the first 8 characters of its id or ref_id (what a table shows), and a refusal by its intent id's start", async () => {
    const execution = await consoleExecution()
    for (const q of [execution.id.slice(0, 8), execution.id.slice(0, 13), execution.ref_id!.slice(0, 8)]) {
      const found = await searchAnything(h, q)
      expect(found.matches.map((m) => [m.kind, m.id, m.matched_by])).toEqual([["execution", execution.id, "id_prefix"]])
    }
    // Seven characters are not an id's start: the log is not searched by them.
    const short = await searchAnything(h, execution.id.slice(0, 7))
    expect(short.matches.filter((m) => m.id === execution.id)).toEqual([])

    const refId = randomUUID()
    const refusal = await recordRefusal(h.db, {
      staff: trader,
      operation: "create_execution",
      profileId,
      request: { quote_id: randomUUID(), quote_amount: "60000.00", ref_id: refId },
      problem: { type: "about:blank", title: "Limit Exceeded", status: 422, code: "limit_exceeded" },
      at: new Date(),
    })
    for (const [q, matchedBy] of [
      [refusal.id.slice(0, 8), "id_prefix"],
      [refId, "ref_id"],
    ] as const) {
      const found = await searchAnything(h, q)
      expect(found.matches.map((m) => [m.kind, m.id, m.matched_by, m.status])).toEqual([["intent", refusal.id, matchedBy, "REFUSED"]])
    }
  })

  it("finds a transfer another client made (a deposit at the service) by its id and by its crypto transaction hash, in either case", async () => {
    const wire = (await h.upstream.sandboxDeposit(profileId, { asset: "USD", amount: "12.50" })).activity_id!
    const byId = await searchAnything(h, wire)
    expect(byId.matches).toEqual([
      expect.objectContaining({ kind: "transfer", id: wire, matched_by: "id", found_in: "service", href: `/transfers/${wire}`, amount: { value: "12.50", asset: "USD" }, summary: "Wire deposit", status: "COMPLETED" }),
    ])
    expect(byId.sources.find((s) => s.source === "service_executions")).toMatchObject({ state: "skipped" })

    const btc = (await h.upstream.sandboxDeposit(profileId, { asset: "BTC", amount: "0.015" })).activity_id!
    const hash = (await h.upstream.getTransfer(btc)).crypto_tx_hash!
    expect(hash).toMatch(/^(0x)?[0-9a-f]{64}$/)
    for (const q of [hash, hash.toUpperCase().replace(/^0X/, "0x")]) {
      const counter = counted(h.upstream)
      const byHash = await searchAnything({ db: h.db, upstream: counter.upstream }, q)
      expect(byHash.matches).toEqual([expect.objectContaining({ kind: "transfer", id: btc, matched_by: "tx_hash" })])
      expect(counter.calls.length).toBeLessThanOrEqual(SEARCH_MAX_SERVICE_CALLS)
    }
    // Something shorter than a hash is not asked for as one.
    const counter = counted(h.upstream)
    await searchAnything({ db: h.db, upstream: counter.upstream }, `short-${randomUUID().slice(0, 8)}`)
    expect(counter.calls.filter((c) => c === "listTransfers")).toHaveLength(1)
  })

  it("says nothing was found, and where it looked, without inventing a match", async () => {
    const counter = counted(h.upstream)
    const q = `made-up-${randomUUID()}`
    const result = await searchAnything({ db: h.db, upstream: counter.upstream }, q)
    expect(result.matches).toEqual([])
    expect(result.partial).toBe(false)
    expect(result.sources.map((s) => [s.source, s.state])).toEqual([
      ["intent_log", "searched"],
      ["service_profiles", "searched"],
      ["service_conversions", "searched"],
      ["service_transfers", "searched"],
      ["service_executions", "searched"],
    ])
    expect(result.service_calls).toBe(counter.calls.length)
    expect(counter.calls.length).toBeLessThanOrEqual(SEARCH_MAX_SERVICE_CALLS)
  })

  it("answers in part when the service fails midway: names the failed source, skips the rest, never throws", async () => {
    const counter = counted(h.upstream, { getConversion: true })
    const result = await searchAnything({ db: h.db, upstream: counter.upstream }, randomUUID())
    expect(result.partial).toBe(true)
    expect(result.matches).toEqual([])
    const state = Object.fromEntries(result.sources.map((s) => [s.source, s.state]))
    expect(state).toEqual({ intent_log: "searched", service_profiles: "searched", service_conversions: "failed", service_transfers: "skipped", service_executions: "skipped" })
    expect(result.sources.find((s) => s.source === "service_conversions")?.detail).toContain("could not be reached")
    // The outage stopped the search: no call after the failed one.
    expect(counter.calls).toEqual(["listProfiles", "getConversion"])
  })

  it("keeps what the intent log found when the service cannot refresh it, and says the answer is partial", async () => {
    const execution = await consoleExecution()
    const counter = counted(h.upstream, { getQuoteExecution: true })
    const result = await searchAnything({ db: h.db, upstream: counter.upstream }, execution.ref_id!)
    expect(result.partial).toBe(true)
    expect(result.matches).toEqual([expect.objectContaining({ kind: "execution", id: execution.id, found_in: "intent_log", status: execution.status })])
    expect(result.sources.find((s) => s.source === "service_records")).toMatchObject({ state: "failed" })
  })

  it("never makes more service calls than the bound, even with many profiles to probe", async () => {
    const many = Array.from({ length: 40 }, (_, i) => ({ id: `profile-${i}`, nickname: `P${i}`, type: "NORMAL" }))
    const base = counted(h.upstream)
    const upstream = new Proxy(base.upstream, {
      get(target, name, receiver) {
        if (name === "listProfiles") return () => Promise.resolve({ items: many })
        return Reflect.get(target, name, receiver) as unknown
      },
    })
    const result = await searchAnything({ db: h.db, upstream }, randomUUID())
    expect(result.service_calls).toBe(SEARCH_MAX_SERVICE_CALLS)
    expect(base.calls.length).toBe(SEARCH_MAX_SERVICE_CALLS - 1)
    expect(result.partial).toBe(true)
    expect(result.sources.find((s) => s.source === "service_executions")?.detail).toMatch(/in \d+ of 40 profiles \(the bound of 10 calls was reached\)/)
  })
})

describe("the search query", () => {
  it("is trimmed, and refuses empty, overlong or control-character input naming q and the rule", () => {
    expect(searchQuerySchema.parse({ q: "  abc \n" })).toEqual({ q: "abc" })
    for (const [q, rule] of [
      ["   ", "must not be empty"],
      ["x".repeat(256), "at most 255 characters"],
      ["a\tb", "must not contain control characters (tabs, line breaks)"],
    ]) {
      const parsed = searchQuerySchema.safeParse({ q })
      expect(parsed.success).toBe(false)
      expect(parsed.error?.issues[0]).toMatchObject({ path: ["q"], message: rule })
    }
    expect(searchQuerySchema.safeParse({}).error?.issues[0]).toMatchObject({ path: ["q"], message: "is required" })
  })
})
