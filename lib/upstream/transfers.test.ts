import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Database } from "@/lib/db/client"
import { type Sandbox, createSandbox } from "@/lib/sandbox"
import { createUpstreamClient } from "@/lib/upstream/client"
import { UpstreamConfigError, UpstreamProblemError } from "@/lib/upstream/errors"
import type { UpstreamClient } from "@/lib/upstream/operations"
import { UPSTREAM_SCOPES } from "@/lib/schemas/scopes"
import { createTestDatabase } from "@/test/db"
import { expectValidResponse } from "@/test/sandbox"

/**
 * listTransfers / getTransfer against the embedded sandbox, in process: every answer the
 * client reads is also checked against the reference's Transfer schemas (test/sandbox.ts).
 */

let database: Database
let sandbox: Sandbox
let credentials: { clientId: string; clientSecret: string }
let api: UpstreamClient
let treasury: string
let other: string
const checked: string[] = []

function connect(scopes: readonly string[] = UPSTREAM_SCOPES): UpstreamClient {
  return createUpstreamClient({
    baseUrl: "http://sandbox.internal/sandbox/v2",
    tokenUrl: "http://sandbox.internal/sandbox/oauth2/token",
    ...credentials,
    scopes,
    timeoutMs: 5000,
    fetch: async (request) => {
      const res = await sandbox.fetch(request)
      const path = new URL(request.url).pathname.replace(/^\/sandbox/, "")
      if (path.startsWith("/v2/transfer/")) {
        const body: unknown = await res.clone().json()
        expectValidResponse(request.method, path, res.status, res.headers.get("content-type") ?? "", body)
        checked.push(`${request.method} ${path} ${res.status}`)
      }
      return res
    },
    retry: { baseDelayMs: 5, maxDelayMs: 20, maxRetryAfterMs: 2000 },
    limits: { token: Infinity, quoteExecutions: Infinity, other: Infinity },
  })
}

let wire: string
let crypto: string
let otherWire: string
let startedAt: string

beforeAll(async () => {
  database = await createTestDatabase("pglite")
  sandbox = createSandbox({
    db: database.db,
    config: { tokenTtlS: 3599, quoteTtlMs: 30_000, settleDelayMs: 0, rateLimits: false, maxExecutionUsd: 50_000, maxConversionUsd: 1_000_000, seed: 31 },
  })
  credentials = await sandbox.ensureClient()
  api = connect()
  const profiles = (await api.listProfiles()).items
  treasury = profiles.find((p) => p.nickname === "Treasury")!.id
  other = profiles.find((p) => p.nickname !== "Treasury")!.id
  startedAt = new Date(Date.now() - 1000).toISOString()
  wire = (await api.sandboxDeposit(treasury, { asset: "USD", amount: "125.50" })).activity_id!
  crypto = (await api.sandboxDeposit(treasury, { asset: "BTC", amount: "0.015" })).activity_id!
  otherWire = (await api.sandboxDeposit(other, { asset: "USD", amount: "7" })).activity_id!
}, 120_000)

afterAll(async () => {
  await sandbox.stop()
  await database.close()
})

describe("the Transfers API client against the embedded sandbox", () => {
  it("lists a profile's deposits newest first, amounts as decimal strings, crypto with its network and hash", async () => {
    checked.length = 0
    const page = await api.listTransfers({ profile_ids: [treasury], order: "DESC" })
    const ours = page.items.filter((t) => t.id === wire || t.id === crypto)
    expect(ours.map((t) => t.id)).toEqual([crypto, wire])
    expect(page.items.some((t) => t.id === otherWire)).toBe(false)
    const [btc, usd] = ours
    expect(usd).toMatchObject({ type: "WIRE_DEPOSIT", direction: "CREDIT", status: "COMPLETED", asset: "USD", profile_id: treasury })
    expect(usd!.amount).toMatch(/^125\.50*$/)
    expect(usd!.crypto_tx_hash).toBeUndefined()
    expect(btc).toMatchObject({ type: "CRYPTO_DEPOSIT", asset: "BTC" })
    expect(btc!.crypto_network).toBe("BITCOIN")
    expect(btc!.crypto_tx_hash).toMatch(/^[0-9a-fx]{64,66}$/)
    expect(btc!.amount).toMatch(/^0\.0150*$/)
    expect(checked).toEqual(["GET /v2/transfer/transfers 200"])
  })

  it("filters by type, status, ids and created_at, and pages with the service's cursor", async () => {
    const cryptoOnly = await api.listTransfers({ type: ["CRYPTO_DEPOSIT"] })
    expect(cryptoOnly.items.map((t) => t.id)).toContain(crypto)
    expect(cryptoOnly.items.every((t) => t.type === "CRYPTO_DEPOSIT")).toBe(true)
    expect((await api.listTransfers({ statuses: ["PENDING"], "created_at.gte": startedAt })).items).toEqual([])
    expect((await api.listTransfers({ ids: [otherWire, wire] })).items.map((t) => t.id).sort()).toEqual([otherWire, wire].sort())
    const future = new Date(Date.now() + 3_600_000).toISOString()
    expect((await api.listTransfers({ "created_at.gte": future })).items).toEqual([])

    const seen: string[] = []
    let cursor: string | undefined
    let pages = 0
    do {
      const page = await api.listTransfers({ "created_at.gte": startedAt, order: "ASC", limit: 2, page_cursor: cursor })
      expect(page.items.length).toBeLessThanOrEqual(2)
      seen.push(...page.items.map((t) => t.id))
      cursor = page.next_page_cursor
      pages++
    } while (cursor && pages < 10)
    expect(seen).toEqual([wire, crypto, otherWire])
    expect(pages).toBe(2)
  })

  it("gets one transfer by id; an unknown id is the service's 404", async () => {
    await expect(api.getTransfer(crypto)).resolves.toMatchObject({ id: crypto, type: "CRYPTO_DEPOSIT", status: "COMPLETED" })
    const missing = await api.getTransfer("0b1b3c9e-0000-4000-8000-000000000000").catch((e: unknown) => e)
    expect(missing).toBeInstanceOf(UpstreamProblemError)
    expect((missing as UpstreamProblemError).status).toBe(404)
  })

  it("asks for transfer:read_transfer: a token without it is refused", async () => {
    const without = connect(UPSTREAM_SCOPES.filter((s) => s !== "transfer:read_transfer"))
    const refused = await without.listTransfers({}).catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(UpstreamConfigError)
    expect((refused as Error).message).toContain("transfer:read_transfer")
  })
})
