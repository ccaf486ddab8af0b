import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import type { Database } from "@/lib/db/client"
import { type Sandbox, createSandbox } from "@/lib/sandbox"
import { createUpstreamClient, type UpstreamClientConfig } from "@/lib/upstream/client"
import type { UpstreamClient } from "@/lib/upstream/operations"
import {
  RateLimitedError,
  UpstreamConfigError,
  UpstreamProblemError,
  UpstreamTimeoutError,
  UpstreamUnavailableError,
} from "@/lib/upstream/errors"
import type { FaultRule } from "@/lib/schemas/sandbox-tools"
import { API_SCOPES } from "@/test/fake-upstream"
import { createTestDatabase } from "@/test/db"

/**
 * The client against the real embedded sandbox, in process (its fetch entry, same HTTP
 * semantics), on a fresh PGlite database. Assertions are about outcomes (one record,
 * the same ref_id, the right error), never about how fast anything ran.
 */

let database: Database
let sandbox: Sandbox
let credentials: { clientId: string; clientSecret: string }
let api: UpstreamClient
let profileId: string

function connect(overrides: Partial<UpstreamClientConfig> = {}): UpstreamClient {
  return createUpstreamClient({
    baseUrl: "http://sandbox.internal/sandbox/v2",
    tokenUrl: "http://sandbox.internal/sandbox/oauth2/token",
    ...credentials,
    scopes: API_SCOPES,
    timeoutMs: 5000,
    fetch: (request) => sandbox.fetch(request),
    retry: { baseDelayMs: 5, maxDelayMs: 20, maxRetryAfterMs: 2000 },
    // The sandbox's own limits are off; the local limiter would only slow the suite down.
    limits: { token: Infinity, quoteExecutions: Infinity, other: Infinity },
    ...overrides,
  })
}

async function faults(...rules: FaultRule[]): Promise<void> {
  await api.putFaults({ rules })
}

async function heldQuote(side: "BUY" | "SELL" = "BUY") {
  const quotes = await api.listQuotes(["BTCUSD"])
  const quote = quotes.find((q) => q.side === side)
  if (!quote) throw new Error(`no ${side} BTCUSD quote`)
  return quote
}

async function executionsWithRef(refId: string) {
  const page = await api.listQuoteExecutions(profileId, { limit: 1000 })
  return page.items.filter((e) => e.ref_id === refId)
}

beforeAll(async () => {
  database = await createTestDatabase("pglite")
  sandbox = createSandbox({
    db: database.db,
    config: {
      tokenTtlS: 3599,
      quoteTtlMs: 30_000,
      settleDelayMs: 0,
      rateLimits: false,
      maxExecutionUsd: 50_000,
      maxConversionUsd: 1_000_000,
      seed: 11,
    },
  })
  credentials = await sandbox.ensureClient()
  api = connect()
  const profiles = await api.listProfiles()
  const treasury = profiles.items.find((p) => p.nickname === "Treasury")
  if (!treasury) throw new Error("the sandbox seeds a Treasury profile")
  profileId = treasury.id
}, 120_000)

afterEach(async () => {
  await faults()
})

afterAll(async () => {
  await sandbox.stop()
  await database.close()
})

describe("against the embedded sandbox", () => {
  it("reads profiles, balances and held quotes, each through its schema", async () => {
    const profiles = await api.listProfiles()
    expect(profiles.items.map((p) => p.nickname)).toEqual(expect.arrayContaining(["Treasury", "Client omnibus", "Operations float"]))
    await expect(api.getProfile(profileId)).resolves.toMatchObject({ id: profileId, nickname: "Treasury" })
    const balances = await api.listBalances(profileId, ["USD", "BTC"])
    expect(balances.map((b) => b.asset).sort()).toEqual(["BTC", "USD"])
    const quotes = await api.listQuotes(["BTCUSD", "ETHUSD"])
    expect(new Set(quotes.map((q) => `${q.market} ${q.side}`))).toEqual(new Set(["BTCUSD BUY", "BTCUSD SELL", "ETHUSD BUY", "ETHUSD SELL"]))
  })

  it("creates, reads and lists an execution; the same submission again is replayed", async () => {
    const quote = await heldQuote()
    const body = { quote_id: quote.id, quote_amount: "100.00", ref_id: "it-exec-1" }
    const created = await api.createQuoteExecution(profileId, body)
    expect(created).toMatchObject({ replayed: false, attempts: 1, record: { quote_id: quote.id, quote_amount: "100.00", ref_id: "it-exec-1" } })
    await expect(api.getQuoteExecution(profileId, created.record.id)).resolves.toMatchObject({ id: created.record.id })
    const again = await api.createQuoteExecution(profileId, { ...body, quote_amount: "100" })
    expect(again).toMatchObject({ replayed: true, record: { id: created.record.id } })
    expect(await executionsWithRef("it-exec-1")).toHaveLength(1)
  })

  it("creates, finds by ref_id and cancels a conversion; a second cancel is the service's 409", async () => {
    const body = { profile_id: profileId, amount: "25.00", source_asset: "USD", target_asset: "USDP", ref_id: "it-conv-1" } as const
    const { record } = await api.createConversion(body)
    expect(record).toMatchObject({ status: "CREATED", ref_id: "it-conv-1", source_asset: "USD", target_asset: "USDP" })
    await expect(api.listConversions({ ref_id: "it-conv-1" })).resolves.toMatchObject({ items: [{ id: record.id }] })
    await expect(api.cancelConversion(record.id)).resolves.toMatchObject({ id: record.id, status: "CANCELLED" })
    const error = await api.cancelConversion(record.id).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(UpstreamProblemError)
    expect(error).toMatchObject({ status: 409, outcome: "rejected" })
  })

  it("passes the service's 400 (with meta.fields) and 404 on as problems, without retrying", async () => {
    const quote = await heldQuote()
    const invalid = await api
      .createQuoteExecution(profileId, { quote_id: quote.id, base_amount: "0.123456789", ref_id: "it-400" })
      .catch((e: unknown) => e)
    expect(invalid).toBeInstanceOf(UpstreamProblemError)
    expect(invalid).toMatchObject({ status: 400, outcome: "rejected", meta: { fields: { base_amount: expect.any(String) as string } } })
    const missing = await api
      .createQuoteExecution(profileId, { quote_id: "00000000-0000-4000-8000-000000000000", base_amount: "0.1", ref_id: "it-404" })
      .catch((e: unknown) => e)
    expect(missing).toMatchObject({ status: 404, title: "Not Found" })
  })

  it.each<["drop" | 503 | 504]>([["drop"], [503], [504]])(
    "commit then fail (%s) on an execution → the retry meets our record: replayed, exactly one",
    async (status) => {
      const quote = await heldQuote("SELL")
      await faults({ operation: "create_execution", fault: "commit_then_fail", rate: 1, status })
      const refId = `it-ctf-exec-${status}`
      const result = await api.createQuoteExecution(profileId, { quote_id: quote.id, base_amount: "0.001", ref_id: refId })
      expect(result).toMatchObject({ replayed: true, attempts: 2, record: { ref_id: refId } })
      await faults()
      expect(await executionsWithRef(refId)).toHaveLength(1)
    },
  )

  it.each<["drop" | 503 | 504]>([["drop"], [503], [504]])("commit then fail (%s) on a conversion → replayed, exactly one", async (status) => {
    await faults({ operation: "create_conversion", fault: "commit_then_fail", rate: 1, status })
    const refId = `it-ctf-conv-${status}`
    const result = await api.createConversion({ profile_id: profileId, amount: "10.00", source_asset: "USD", target_asset: "PYUSD", ref_id: refId })
    expect(result).toMatchObject({ replayed: true, attempts: 2 })
    await faults()
    expect((await api.listConversions({ ref_id: refId })).items).toHaveLength(1)
  })

  it("an execution that meets 503 on every attempt → unavailable after 3, outcome unknown, nothing stored", async () => {
    const quote = await heldQuote()
    await faults({ operation: "create_execution", fault: "error", rate: 1, status: 503 })
    const error = await api
      .createQuoteExecution(profileId, { quote_id: quote.id, base_amount: "0.001", ref_id: "it-503" })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(UpstreamUnavailableError)
    expect(error).toMatchObject({ status: 503, outcome: "unknown" })
    await faults()
    expect(await executionsWithRef("it-503")).toHaveLength(0)
  })

  it("the sandbox's 429 on every attempt → the service's 429 problem, outcome rejected", async () => {
    await faults({ operation: "list", fault: "rate_limit", rate: 1 })
    const error = await api.listQuoteExecutions(profileId).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(UpstreamProblemError)
    expect(error).not.toBeInstanceOf(RateLimitedError)
    expect(error).toMatchObject({ status: 429, outcome: "rejected", retryAfterSeconds: expect.any(Number) as number })
  })

  it("a read that hangs until the caller's timeout → UpstreamTimeoutError after its attempts", async () => {
    const quick = connect({ timeoutMs: 300 })
    await faults({ operation: "get", fault: "hang", rate: 1 })
    const error = await quick.getProfile(profileId).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(UpstreamTimeoutError)
    expect(error).toMatchObject({ outcome: "unknown", mutating: false })
  })

  it("round-trips the fault settings with the sandbox:admin token", async () => {
    const rule: FaultRule = { operation: "quotes", fault: "latency", rate: 0.5, latency_ms: 1 }
    const put = await api.putFaults({ rules: [rule] })
    expect(put.rules).toEqual([rule])
    await expect(api.getFaults()).resolves.toMatchObject({ rules: [rule] })
  })

  it("a wrong secret and an unknown scope are configuration errors that never show the secret", async () => {
    const wrong = connect({ clientSecret: "definitely-not-the-secret" })
    const refused = await wrong.listProfiles().catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(UpstreamConfigError)
    expect(JSON.stringify({ m: (refused as Error).message, s: (refused as Error).stack })).not.toContain("definitely-not-the-secret")

    const greedy = connect({ scopes: [...API_SCOPES, "exchange:write_order"] })
    const scopeError = await greedy.listProfiles().catch((e: unknown) => e)
    expect(scopeError).toBeInstanceOf(UpstreamConfigError)
    expect((scopeError as Error).message).toContain("not granted")
    expect((scopeError as Error).message).not.toContain(credentials.clientSecret)
  })
})
