import { beforeEach, describe, expect, it } from "vitest"
import { createUpstreamClient } from "@/lib/upstream/client"
import type { QuoteExecutionCreateInput } from "@/lib/upstream/operations"
import {
  UpstreamConfigError,
  UpstreamConflictError,
  UpstreamError,
  UpstreamProblemError,
  UpstreamResponseError,
  UpstreamTimeoutError,
  UpstreamUnavailableError,
} from "@/lib/upstream/errors"
import type { FaultSettingsUpdate } from "@/lib/schemas/sandbox-tools"
import {
  FakeClock,
  FakeUpstream,
  PROFILE_ID,
  QUOTE_ID,
  SELL_QUOTE_ID,
  type Step,
  testConfig,
} from "@/test/fake-upstream"

let clock: FakeClock
let upstream: FakeUpstream

beforeEach(() => {
  clock = new FakeClock()
  upstream = new FakeUpstream(clock)
})

function client(overrides: Parameters<typeof testConfig>[2] = {}) {
  const config = testConfig(clock, upstream, overrides)
  return { api: createUpstreamClient(config), events: config.events }
}

const execution: QuoteExecutionCreateInput = { quote_id: QUOTE_ID, base_amount: "0.5", ref_id: "ref-exec-1" }
const conversion = { profile_id: PROFILE_ID, amount: "250.00", source_asset: "USD", target_asset: "USDP", ref_id: "ref-conv-1" } as const

function problemBody(status: number, title: string, detail: string, slug?: string, meta?: Record<string, unknown>) {
  const type = slug ? `https://developer.paxos.com/docs/v2/problems/${slug}` : "about:blank"
  return { type, title, status, detail, ...(meta ? { meta } : {}) }
}

async function failure(promise: Promise<unknown>): Promise<UpstreamError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  if (!(error instanceof UpstreamError)) throw new Error(`expected an UpstreamError, got ${String(error)}`)
  return error
}

const retryable: [string, Step][] = [
  ["429 with Retry-After", { kind: "respond", status: 429, body: problemBody(429, "Too Many Requests", "slow down"), headers: { "retry-after": "1" } }],
  ["500", { kind: "respond", status: 500, body: problemBody(500, "Internal Server Error", "boom") }],
  ["502", { kind: "respond", status: 502, body: "<html>bad gateway</html>" }],
  ["503", { kind: "respond", status: 503, body: problemBody(503, "Service Unavailable", "maintenance") }],
  ["504", { kind: "respond", status: 504, body: "" }],
  ["a network error", { kind: "network" }],
  ["a timeout (the service hangs)", { kind: "hang" }],
  ["a body stream that errors", { kind: "body_error" }],
]

describe("creates: retries with the same body and ref_id", () => {
  it.each(retryable)("%s → retried, same ref_id, one record", async (_, step) => {
    const { api } = client()
    upstream.script.push(step)
    const result = await api.createQuoteExecution(PROFILE_ID, execution)

    expect(result).toMatchObject({ replayed: false, attempts: 2 })
    const posts = upstream.apiRequests("POST")
    expect(posts).toHaveLength(2)
    expect(posts.map((p) => p.body)).toEqual([execution, execution])
    expect(upstream.executions.size).toBe(1)
    expect(result.record).toMatchObject({ profile_id: PROFILE_ID, quote_id: QUOTE_ID, ref_id: "ref-exec-1", base_amount: "0.50000000" })
  })

  it.each(retryable)("conversions too: %s → retried with the same ref_id", async (_, step) => {
    const { api } = client()
    upstream.script.push(step)
    const result = await api.createConversion(conversion)
    expect(result).toMatchObject({ replayed: false, attempts: 2, record: { status: "CREATED", ref_id: "ref-conv-1" } })
    expect(upstream.apiRequests("POST").map((p) => p.body)).toEqual([conversion, conversion])
    expect(upstream.conversions.size).toBe(1)
  })

  it("at most 3 attempts: 503 three times → UpstreamUnavailableError, outcome unknown", async () => {
    const { api } = client()
    for (let i = 0; i < 4; i++) upstream.script.push({ kind: "respond", status: 503, body: "" })
    const error = await failure(api.createQuoteExecution(PROFILE_ID, execution))
    expect(error).toBeInstanceOf(UpstreamUnavailableError)
    expect(error).toMatchObject({ status: 503, outcome: "unknown", operation: "createQuoteExecution", mutating: true })
    expect(upstream.apiRequests("POST")).toHaveLength(3)
  })

  it("three timeouts → UpstreamTimeoutError, outcome unknown", async () => {
    const { api } = client({ timeoutMs: 2500 })
    upstream.script.push({ kind: "hang" }, { kind: "hang" }, { kind: "hang" })
    const started = clock.now()
    const error = await failure(api.createQuoteExecution(PROFILE_ID, execution))
    expect(error).toBeInstanceOf(UpstreamTimeoutError)
    expect(error).toMatchObject({ timeoutMs: 2500, outcome: "unknown" })
    expect(upstream.apiRequests("POST")).toHaveLength(3)
    // Three timeouts plus two backoffs (random 0.5 → 100 ms, 200 ms) of simulated time.
    expect(clock.now() - started).toBe(3 * 2500 + 100 + 200)
  })

  it("three 429s → the service's 429 problem, outcome rejected (never applied)", async () => {
    const { api } = client()
    for (let i = 0; i < 3; i++) {
      upstream.script.push({ kind: "respond", status: 429, body: problemBody(429, "Too Many Requests", "slow down"), headers: { "retry-after": "2" } })
    }
    const error = await failure(api.createQuoteExecution(PROFILE_ID, execution))
    expect(error).toBeInstanceOf(UpstreamProblemError)
    expect(error).toMatchObject({ status: 429, retryAfterSeconds: 2, outcome: "rejected" })
    expect(upstream.apiRequests("POST")).toHaveLength(3)
  })

  it("honours Retry-After: waits at least that long before the next attempt", async () => {
    const { api } = client()
    upstream.script.push({ kind: "respond", status: 429, body: "", headers: { "retry-after": "3" } })
    await api.createQuoteExecution(PROFILE_ID, execution)
    const [first, second] = upstream.apiRequests("POST")
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(3000)
    expect(clock.sleeps).toContain(3000)
  })

  it("a Retry-After beyond the cap is not waited for: the 429 comes back at once", async () => {
    const { api } = client({ retry: { maxRetryAfterMs: 5000 } })
    upstream.script.push({ kind: "respond", status: 429, body: "", headers: { "retry-after": "300" } })
    const error = await failure(api.createQuoteExecution(PROFILE_ID, execution))
    expect(error).toMatchObject({ status: 429, retryAfterSeconds: 300, outcome: "rejected" })
    expect(upstream.apiRequests("POST")).toHaveLength(1)
  })

  it("backs off exponentially with full jitter, capped", async () => {
    const { api } = client({ random: () => 0.999, retry: { maxAttempts: 5, baseDelayMs: 200, maxDelayMs: 1000 } })
    for (let i = 0; i < 5; i++) upstream.script.push({ kind: "respond", status: 500, body: "" })
    await failure(api.createQuoteExecution(PROFILE_ID, execution))
    expect(clock.sleeps).toEqual([199, 399, 799, 999])
  })

  it("jitter draws from [0, ceiling): random 0 retries at once", async () => {
    const { api } = client({ random: () => 0 })
    upstream.script.push({ kind: "respond", status: 500, body: "" })
    await api.createQuoteExecution(PROFILE_ID, execution)
    expect(clock.sleeps).toEqual([])
  })
})

describe("commit then fail: the first attempt is stored, its answer lost", () => {
  it.each<[string, Step]>([
    ["a dropped connection", { kind: "commit", then: "network" }],
    ["a body stream that errors", { kind: "commit", then: "body" }],
    ["503", { kind: "commit", then: 503 }],
    ["504", { kind: "commit", then: 504 }],
  ])("execution, %s → the retry meets 409 with our record: success, replayed", async (_, step) => {
    const { api, events } = client()
    upstream.script.push(step)
    const result = await api.createQuoteExecution(PROFILE_ID, execution)
    expect(result.replayed).toBe(true)
    expect(result.attempts).toBe(2)
    expect(upstream.executions.size).toBe(1)
    expect(result.record.id).toBe([...upstream.executions.keys()][0])
    expect(events.some((e) => e.event === "replayed")).toBe(true)
  })

  it.each<[string, Step]>([
    ["a dropped connection", { kind: "commit", then: "network" }],
    ["504", { kind: "commit", then: 504 }],
  ])("conversion, %s → replayed", async (_, step) => {
    const { api } = client()
    upstream.script.push(step)
    const result = await api.createConversion(conversion)
    expect(result).toMatchObject({ replayed: true, attempts: 2 })
    expect(upstream.conversions.size).toBe(1)
  })

  it("every attempt committed-then-failed but the last → still exactly one record", async () => {
    const { api } = client()
    upstream.script.push({ kind: "commit", then: "network" }, { kind: "commit", then: 503 })
    const result = await api.createQuoteExecution(PROFILE_ID, execution)
    expect(result).toMatchObject({ replayed: true, attempts: 3 })
    expect(upstream.executions.size).toBe(1)
  })

  it("a timeout after commit: the service stored it, the client gave up waiting → replayed on retry", async () => {
    const { api } = client()
    upstream.script.push({ kind: "commit", then: "network" })
    upstream.script.push({ kind: "hang" })
    const result = await api.createQuoteExecution(PROFILE_ID, execution)
    expect(result).toMatchObject({ replayed: true, attempts: 3 })
  })
})

describe("409 Already Exists", () => {
  it("a double submission (same ref_id, same request) is success with replayed: true", async () => {
    const { api } = client()
    const first = await api.createQuoteExecution(PROFILE_ID, execution)
    const second = await api.createQuoteExecution(PROFILE_ID, execution)
    expect(second).toEqual({ record: first.record, replayed: true, attempts: 1 })
  })

  it("matches amounts by value: 0.5 and 0.50000000 are the same amount", async () => {
    const { api } = client()
    await api.createQuoteExecution(PROFILE_ID, execution)
    const again = await api.createQuoteExecution(PROFILE_ID, { ...execution, base_amount: "0.500" })
    expect(again.replayed).toBe(true)
  })

  it("a quote_amount execution matches on quote_amount", async () => {
    const { api } = client()
    const body = { quote_id: SELL_QUOTE_ID, quote_amount: "100", ref_id: "ref-q" }
    await api.createQuoteExecution(PROFILE_ID, body)
    await expect(api.createQuoteExecution(PROFILE_ID, { ...body, quote_amount: "100.00" })).resolves.toMatchObject({ replayed: true })
  })

  it.each<[string, QuoteExecutionCreateInput]>([
    ["another quote", { ...execution, quote_id: SELL_QUOTE_ID }],
    ["another amount", { ...execution, base_amount: "0.6" }],
    ["the other side of the amount", { quote_id: QUOTE_ID, quote_amount: "0.5", ref_id: execution.ref_id }],
  ])("the ref_id reused for %s → UpstreamConflictError with the existing record", async (_, other) => {
    const { api } = client()
    const first = await api.createQuoteExecution(PROFILE_ID, execution)
    const error = await failure(api.createQuoteExecution(PROFILE_ID, other))
    expect(error).toBeInstanceOf(UpstreamConflictError)
    const conflict = error as UpstreamConflictError
    expect(conflict).toMatchObject({ status: 409, title: "Already Exists", outcome: "rejected" })
    expect(conflict.existing).toEqual({ kind: "quote_execution", record: first.record })
    expect(upstream.apiRequests("POST")).toHaveLength(2)
  })

  it("conversion ref_id reused for another amount → conflict; same request → replayed", async () => {
    const { api } = client()
    await api.createConversion(conversion)
    await expect(api.createConversion({ ...conversion, amount: "250" })).resolves.toMatchObject({ replayed: true })
    const error = await failure(api.createConversion({ ...conversion, amount: "251.00" }))
    expect(error).toBeInstanceOf(UpstreamConflictError)
    expect((error as UpstreamConflictError).existing.kind).toBe("conversion")
  })

  it("a commit-then-fail followed by a conflicting 409 stays a conflict (outcome rejected)", async () => {
    const { api } = client()
    await api.createQuoteExecution(PROFILE_ID, { ...execution, base_amount: "1" })
    upstream.script.push({ kind: "network" })
    const error = await failure(api.createQuoteExecution(PROFILE_ID, execution))
    expect(error).toBeInstanceOf(UpstreamConflictError)
    expect(error.outcome).toBe("rejected")
  })

  it("a 409 of another type that carries meta.existing is still recognised: our record → replayed", async () => {
    const { api } = client()
    const first = await api.createQuoteExecution(PROFILE_ID, execution)
    upstream.script.push({
      kind: "respond",
      status: 409,
      body: { type: "about:blank", title: "Conflict", status: 409, detail: "ref_id already used", meta: { existing: first.record } },
    })
    await expect(api.createQuoteExecution(PROFILE_ID, execution)).resolves.toEqual({ record: first.record, replayed: true, attempts: 1 })
  })

  it("a 409 without a readable meta.existing → UpstreamResponseError, outcome unknown", async () => {
    const { api } = client()
    upstream.script.push({
      kind: "respond",
      status: 409,
      body: problemBody(409, "Already Exists", "quote execution already exists", "already-exists", { existing: { id: 7 } }),
    })
    const error = await failure(api.createQuoteExecution(PROFILE_ID, execution))
    expect(error).toBeInstanceOf(UpstreamResponseError)
    expect(error.outcome).toBe("unknown")
    expect(upstream.apiRequests("POST")).toHaveLength(1)
  })
})

describe("what is not retried", () => {
  it.each([
    [400, problemBody(400, "Bad Request", "at most 8 decimals", undefined, { fields: { base_amount: "at most 8 decimals" } })],
    [403, problemBody(403, "Insufficient Funds", "insufficient USD funds", "insufficient-funds", { profile_id: PROFILE_ID, asset: "USD", available: "50", needed: "100" })],
    [403, problemBody(403, "Expired", "quote expired", "expired", { expired_at: "2026-01-01T12:00:00Z" })],
    [403, problemBody(403, "Rejected", "extreme market conditions", "rejected", {})],
    [404, problemBody(404, "Not Found", "quote not found with id x")],
  ])("%s %o → one attempt, UpstreamProblemError keeping status, type, title, detail and meta", async (status, body) => {
    const { api } = client()
    upstream.script.push({ kind: "respond", status, body })
    const error = await failure(api.createQuoteExecution(PROFILE_ID, execution))
    expect(error).toBeInstanceOf(UpstreamProblemError)
    expect(error).toMatchObject({ status, type: body.type, title: body.title, detail: body.detail, meta: body.meta, outcome: "rejected" })
    expect(upstream.apiRequests("POST")).toHaveLength(1)
  })

  it("cancel is not retried: a 503 → UpstreamUnavailableError after one DELETE, outcome unknown", async () => {
    const { api } = client()
    const { record } = await api.createConversion(conversion)
    upstream.script.push({ kind: "respond", status: 503, body: "" })
    const error = await failure(api.cancelConversion(record.id))
    expect(error).toBeInstanceOf(UpstreamUnavailableError)
    expect(error).toMatchObject({ outcome: "unknown", mutating: true, operation: "cancelConversion" })
    expect(upstream.apiRequests("DELETE")).toHaveLength(1)
  })

  it.each<[string, Step]>([
    ["network error", { kind: "network" }],
    ["timeout", { kind: "hang" }],
    ["429", { kind: "respond", status: 429, body: "", headers: { "retry-after": "1" } }],
  ])("cancel, %s → one DELETE", async (_, step) => {
    const { api } = client()
    const { record } = await api.createConversion(conversion)
    upstream.script.push(step)
    await failure(api.cancelConversion(record.id))
    expect(upstream.apiRequests("DELETE")).toHaveLength(1)
  })

  it("cancel works and a second cancel is the service's 409 problem, passed on", async () => {
    const { api } = client()
    const { record } = await api.createConversion(conversion)
    await expect(api.cancelConversion(record.id)).resolves.toMatchObject({ status: "CANCELLED" })
    const error = await failure(api.cancelConversion(record.id))
    expect(error).toBeInstanceOf(UpstreamProblemError)
    expect(error).not.toBeInstanceOf(UpstreamConflictError)
    expect(error).toMatchObject({ status: 409, meta: { status: "CANCELLED" } })
  })

  it("the sandbox deposit and putFaults are not retried", async () => {
    const { api } = client()
    upstream.script.push({ kind: "respond", status: 500, body: "" })
    await failure(api.sandboxDeposit(PROFILE_ID, { asset: "USD", amount: "1000.00" }))
    upstream.script.push({ kind: "respond", status: 503, body: "" })
    await failure(api.putFaults({ rules: [] }))
    expect(upstream.apiRequests("POST")).toHaveLength(1)
    expect(upstream.apiRequests("PUT")).toHaveLength(1)
  })
})

describe("reads", () => {
  it.each(retryable)("%s → retried", async (_, step) => {
    const { api } = client()
    const { record } = await api.createQuoteExecution(PROFILE_ID, execution)
    upstream.script.push(step)
    await expect(api.getQuoteExecution(PROFILE_ID, record.id)).resolves.toEqual(record)
    expect(upstream.apiRequests("GET")).toHaveLength(2)
  })

  it("at most 3 attempts for a read", async () => {
    const { api } = client()
    for (let i = 0; i < 3; i++) upstream.script.push({ kind: "network" })
    const error = await failure(api.listQuotes(["BTCUSD"]))
    expect(error).toBeInstanceOf(UpstreamUnavailableError)
    expect(error.mutating).toBe(false)
    expect(upstream.requests).toHaveLength(3)
  })

  it("sends the documented paths, queries and headers", async () => {
    const { api } = client()
    await api.listQuotes(["BTCUSD", "ETHUSD"])
    await api.listBalances(PROFILE_ID, ["USD", "BTC"])
    await api.listQuoteExecutions(PROFILE_ID, { side: "BUY", "created_at.begin": "2026-01-01T00:00:00Z", limit: 10 })
    await api.listConversions({ ref_id: "ref-conv-1", order: "ASC" })
    await api.getProfile(PROFILE_ID)
    await failure(api.getConversion("a/b c"))
    await api.createConversion(conversion)
    await api.sandboxDeposit(PROFILE_ID, { asset: "USD", amount: "1000.00" })

    const [quotes, balances, executions, conversions, profile, odd, create, deposit] = upstream.requests
    expect(quotes?.path).toBe("/quotes")
    expect(quotes?.search.getAll("markets")).toEqual(["BTCUSD", "ETHUSD"])
    expect(balances?.path).toBe(`/profiles/${PROFILE_ID}/balances`)
    expect(balances?.search.getAll("assets")).toEqual(["USD", "BTC"])
    expect(executions?.search.toString()).toBe("side=BUY&created_at.begin=2026-01-01T00%3A00%3A00Z&limit=10")
    expect(conversions?.path).toBe("/conversion/stablecoins")
    expect(conversions?.search.get("ref_id")).toBe("ref-conv-1")
    expect(profile?.path).toBe(`/profiles/${PROFILE_ID}`)
    expect(odd?.path).toBe("/conversion/stablecoins/a%2Fb%20c")
    expect(create).toMatchObject({ method: "POST", contentType: "application/json", body: conversion })
    expect(deposit).toMatchObject({ method: "POST", path: `/sandbox/profiles/${PROFILE_ID}/deposit`, body: { asset: "USD", amount: "1000.00" } })
    expect(quotes?.contentType).toBeNull()
  })

  it("parses every operation's answer", async () => {
    const { api } = client()
    const quotes = await api.listQuotes(["BTCUSD"])
    expect(quotes).toEqual([expect.objectContaining({ id: QUOTE_ID, price: "6001.2" })])
    expect(await api.listProfiles()).toMatchObject({ items: [{ id: PROFILE_ID }] })
    expect(await api.listBalances(PROFILE_ID)).toEqual([
      { asset: "USD", available: "1000000.00", trading: "0" },
      { asset: "BTC", available: "12.5", trading: ".25" },
    ])
    const { record } = await api.createQuoteExecution(PROFILE_ID, execution)
    expect(await api.listQuoteExecutions(PROFILE_ID)).toEqual({ total_count: 1, items: [record] })
    const created = await api.createConversion(conversion)
    expect(await api.getConversion(created.record.id)).toEqual(created.record)
    expect(await api.listConversions()).toEqual({ items: [created.record] })
    expect(await api.sandboxDeposit(PROFILE_ID, { asset: "USD", amount: "5" })).toMatchObject({ activity_id: expect.any(String) as string })
    const faults: FaultSettingsUpdate = {
      seed: 3,
      rules: [{ operation: "create_execution", fault: "commit_then_fail", rate: 1, status: "drop" }],
    }
    expect(await api.putFaults(faults)).toEqual(faults)
    expect(await api.getFaults()).toEqual(faults)
  })
})

describe("answers that break the contract", () => {
  it("a record that does not match its schema → UpstreamResponseError, not passed on", async () => {
    const { api } = client()
    upstream.script.push({ kind: "respond", status: 200, body: { items: [{ id: QUOTE_ID, market: "BTCUSD", side: "BUY", price: 6001.2 }] } })
    const error = await failure(api.listQuotes(["BTCUSD"]))
    expect(error).toBeInstanceOf(UpstreamResponseError)
    expect(error.message).toMatch(/items\.0\.price/)
    expect(upstream.requests).toHaveLength(1)
  })

  it("a created record with a JSON-number amount → UpstreamResponseError, outcome unknown, no retry", async () => {
    const { api } = client()
    upstream.script.push({
      kind: "respond",
      status: 200,
      body: { id: "x", profile_id: PROFILE_ID, quote_id: QUOTE_ID, status: "CREATED", market: "BTCUSD", side: "BUY", price: "1", base_amount: 0.5, base_asset: "BTC", quote_amount: "0.50", quote_asset: "USD", created_at: "2026-01-01T00:00:00Z" },
    })
    const error = await failure(api.createQuoteExecution(PROFILE_ID, execution))
    expect(error).toBeInstanceOf(UpstreamResponseError)
    expect(error).toMatchObject({ outcome: "unknown", status: 200 })
    expect(upstream.apiRequests("POST")).toHaveLength(1)
  })

  it("a 200 that is not JSON → UpstreamResponseError", async () => {
    const { api } = client()
    upstream.script.push({ kind: "respond", status: 200, body: "<html>login</html>" })
    expect(await failure(api.listProfiles())).toBeInstanceOf(UpstreamResponseError)
  })

  it("a non-problem error body becomes a generic problem titled by the reason phrase", async () => {
    const { api } = client()
    upstream.script.push({ kind: "respond", status: 404, body: "<html>nope</html>" })
    const error = await failure(api.getConversion("missing"))
    expect(error).toMatchObject({ status: 404, type: "about:blank", title: "Not Found", detail: undefined })
  })

  it("a problem served as application/json (as the conversion API does) is read as a problem", async () => {
    const { api } = client()
    upstream.script.push({ kind: "respond", status: 400, body: problemBody(400, "Bad Request", "11000 amount is above the maximum 10000 USD") })
    const error = await failure(api.createConversion(conversion))
    expect(error).toMatchObject({ status: 400, title: "Bad Request", detail: "11000 amount is above the maximum 10000 USD" })
  })

  it("a 403 'insufficient scopes' is a configuration error", async () => {
    const { api } = client()
    upstream.script.push({
      kind: "respond",
      status: 403,
      body: problemBody(403, "Forbidden", "insufficient scopes: found [exchange:read_quote], required one of [conversion:write_conversion_stablecoin]"),
    })
    const error = await failure(api.createConversion(conversion))
    expect(error).toBeInstanceOf(UpstreamConfigError)
    expect(error.message).toContain("conversion:write_conversion_stablecoin")
  })

  it("after an attempt whose outcome is unknown, a 4xx does not prove the create failed: outcome unknown", async () => {
    const { api } = client()
    upstream.script.push(
      { kind: "network" },
      { kind: "respond", status: 403, body: problemBody(403, "Insufficient Funds", "insufficient USD funds", "insufficient-funds", {}) },
    )
    const error = await failure(api.createQuoteExecution(PROFILE_ID, execution))
    expect(error).toBeInstanceOf(UpstreamProblemError)
    expect(error).toMatchObject({ status: 403, outcome: "unknown" })
  })

  it("a create without a ref_id is refused before anything is sent", async () => {
    const { api } = client()
    const body = { quote_id: QUOTE_ID, base_amount: "1" } as unknown as QuoteExecutionCreateInput
    const error = await failure(api.createQuoteExecution(PROFILE_ID, body))
    expect(error).toBeInstanceOf(UpstreamConfigError)
    expect(error.outcome).toBe("rejected")
    expect(upstream.requests).toHaveLength(0)
    expect(upstream.tokenRequests).toHaveLength(0)
  })

  it("an invalid configuration is refused up front without echoing the secret", () => {
    expect(() => createUpstreamClient(testConfig(clock, upstream, { scopes: [], baseUrl: "not a url" }))).toThrow(UpstreamConfigError)
  })
})

describe("the log hook", () => {
  it("reports each request with op, attempt, status and ms, and each retry", async () => {
    const { api, events } = client()
    upstream.script.push({ kind: "respond", status: 503, body: "" })
    await api.createQuoteExecution(PROFILE_ID, execution)
    const requests = events.filter((e) => e.event === "request")
    expect(requests).toEqual([
      expect.objectContaining({ op: "createQuoteExecution", method: "POST", attempt: 1, status: 503, ms: expect.any(Number) as number }),
      expect.objectContaining({ op: "createQuoteExecution", attempt: 2, status: 200 }),
    ])
    expect(events).toContainEqual(expect.objectContaining({ event: "retry", op: "createQuoteExecution", attempt: 1, delayMs: 100 }))
    expect(JSON.stringify(events)).not.toContain("ref-exec-1")
  })

  it("a throwing log hook never breaks a call", async () => {
    const api = createUpstreamClient(
      testConfig(clock, upstream, {
        log: () => {
          throw new Error("log sink down")
        },
      }),
    )
    await expect(api.listProfiles()).resolves.toBeDefined()
  })
})
