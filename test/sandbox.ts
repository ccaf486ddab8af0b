import { expect } from "vitest"
import { z } from "zod"
import type { Database } from "@/lib/db/client"
import { type Sandbox, type SandboxConfig, type SandboxOptions, createSandbox } from "@/lib/sandbox/index"
import { SANDBOX_SCOPES } from "@/lib/schemas/scopes"
import { FakeClock } from "@/test/clock"
import { type TestDriver, createTestDatabase } from "@/test/db"
import type { WireQuote } from "@/lib/sandbox/format"

/**
 * Test support for the sandbox's suites: a sandbox on a fresh database with a clock the
 * test moves, a small client, and response schemas written from the facts of the
 * service's OpenAPI file (required fields, enums, decimal strings), so every response a
 * test sees is checked against the contract.
 */

// ------------------------------------------------------------------ OpenAPI facts

/** `format: decimal` and the request pattern `^[0-9]*\.?[0-9]+$`. */
export const DECIMAL = /^-?[0-9]*\.?[0-9]+$/
/** RFC 3339, UTC with Z (the sandbox always writes Z). */
const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** The Market enum of the OpenAPI file, plus MATICUSD from the service interface's list. */
export const OPENAPI_MARKETS = [
  "ETHEUR", "ETHSGD", "ETHUSD", "BTCEUR", "BTCSGD", "BTCUSD", "PAXGUSD", "BCHUSD", "LTCUSD", "USDPUSD",
  "LINKUSD", "AAVEUSD", "UNIUSD", "PEPEUSD", "TRUMPUSD", "SHIBUSD", "ARBUSD", "BONKUSD", "ENAUSD", "MNTUSD",
  "ONDOUSD", "PENGUUSD", "QNTUSD", "RENDERUSD", "SKYUSD", "WIFUSD", "WLDUSD", "DOGEUSD", "AVAXUSD", "SUIUSD",
  "POLUSD", "XLMUSD", "BNBUSD", "MATICUSD",
] as const

const decimal = z.string().regex(DECIMAL, "format: decimal")
/** The Transfer's amount pattern `^[0-9]*\.?[0-9]+$`. */
const UNSIGNED_DECIMAL = /^[0-9]*\.?[0-9]+$/
const TRANSFER_TYPES = [
  "INTERNAL_TRANSFER_DEBIT", "INTERNAL_TRANSFER_CREDIT", "CRYPTO_DEPOSIT", "CRYPTO_WITHDRAWAL", "WIRE_DEPOSIT", "WIRE_WITHDRAWAL",
  "SEN_DEPOSIT", "SEN_WITHDRAWAL", "BANK_DEPOSIT", "BANK_WITHDRAWAL", "PAXOS_TRANSFER_DEBIT", "PAXOS_TRANSFER_CREDIT", "SIGNET_DEPOSIT",
  "SIGNET_WITHDRAWAL", "CBIT_WITHDRAWAL", "CBIT_DEPOSIT", "CUBIX_DEPOSIT", "CUBIX_WITHDRAWAL", "RTP_DEPOSIT",
] as const
const CRYPTO_NETWORK_ENUM = [
  "BITCOIN", "ETHEREUM", "BITCOIN_CASH", "LITECOIN", "SOLANA", "POLYGON_POS", "BASE", "ARBITRUM_ONE", "STELLAR", "INK", "XLAYER",
  "AVALANCHE", "DOGECOIN", "SUI", "ROBINHOOD", "BNB",
] as const
const dateTime = z.string().regex(RFC3339_UTC, "RFC 3339 UTC date-time")
const stringMap = z.record(z.string(), z.string())

export const openapi = {
  Quote: z.strictObject({
    id: z.string().regex(UUID),
    market: z.enum(OPENAPI_MARKETS),
    side: z.enum(["BUY", "SELL"]),
    price: decimal,
    base_asset: z.string().min(1),
    quote_asset: z.string().min(1),
    created_at: dateTime,
    expires_at: dateTime,
  }),
  QuoteExecution: z.strictObject({
    id: z.string().regex(UUID),
    profile_id: z.string().min(1),
    quote_id: z.string().min(1),
    ref_id: z.string().optional(),
    status: z.enum(["CREATED", "SETTLED"]),
    market: z.enum(OPENAPI_MARKETS),
    side: z.enum(["BUY", "SELL"]),
    price: decimal,
    base_amount: decimal,
    base_asset: z.string().min(1),
    quote_amount: decimal,
    quote_asset: z.string().min(1),
    created_at: dateTime,
    settled_at: dateTime.optional(),
    metadata: stringMap.optional(),
    identity_id: z.string().optional(),
    account_id: z.string().optional(),
    recipient_profile_id: z.string().optional(),
  }),
  StablecoinConversion: z.strictObject({
    id: z.string().regex(UUID).optional(),
    profile_id: z.string().optional(),
    amount: decimal.optional(),
    source_asset: z.string().optional(),
    target_asset: z.string().optional(),
    status: z.string().optional(),
    ref_id: z.string().optional(),
    identity_id: z.string().optional(),
    account_id: z.string().optional(),
    created_at: dateTime.optional(),
    updated_at: dateTime.optional(),
    settled_at: dateTime.optional(),
    cancelled_at: dateTime.optional(),
    metadata: stringMap.optional(),
    recipient_profile_id: z.string().optional(),
  }),
  /** The reference's Orchestration with the fields the profile-to-profile flow carries. */
  Orchestration: z.strictObject({
    id: z.string().regex(UUID),
    profile_id: z.string(),
    identity_id: z.string().optional(),
    account_id: z.string().optional(),
    customer_id: z.string(),
    ref_id: z.string(),
    source_asset: z.string(),
    destination_asset: z.string(),
    source_amount: decimal,
    source_transfer: z.strictObject({ transfer_id: z.string(), status: z.enum(["PENDING", "PROCESSING", "COMPLETED", "FAILED"]) }).optional(),
    destination_transfer: z.strictObject({ transfer_id: z.string(), status: z.enum(["PENDING", "PROCESSING", "COMPLETED", "FAILED"]) }).optional(),
    status: z.enum(["PROCESSING", "COMPLETED", "FAILED", "PENDING", "REJECTED"]),
    fail_reason: z.strictObject({ detail: z.string() }).optional(),
    source: z.strictObject({ profile: z.strictObject({ profile_id: z.string() }) }),
    destination: z.strictObject({ profile: z.strictObject({ profile_id: z.string() }) }),
    orchestration_rule_id: z.string().optional(),
    created_at: dateTime,
    updated_at: dateTime,
    metadata: stringMap.optional(),
  }),
  Profile: z.strictObject({
    id: z.string().min(1),
    nickname: z.string(),
    type: z.enum(["NORMAL", "DEFAULT"]),
    description: z.string().optional(),
    account_id: z.string().optional(),
  }),
  ProfileBalance: z.strictObject({ asset: z.string().min(1), available: decimal, trading: decimal }),
  /** paxos-v2-events-transfers: Event. */
  Event: z.strictObject({
    id: z.string().regex(UUID),
    type: z.string().min(1),
    object_type: z.string().min(1),
    object: z.record(z.string(), z.unknown()),
    created_at: dateTime,
    undelivered_webhooks: z.number().int().min(0).max(2_147_483_647),
  }),
  /** paxos-v2-events-transfers: Transfer (its required fields, enums and patterns). */
  Transfer: z.strictObject({
    id: z.string().regex(UUID),
    customer_id: z.string(),
    profile_id: z.string(),
    identity_id: z.string().optional(),
    ref_id: z.string().optional(),
    amount: z.string().regex(UNSIGNED_DECIMAL),
    total: z.string().regex(UNSIGNED_DECIMAL),
    fee: z.string().regex(UNSIGNED_DECIMAL),
    asset: z.string().min(1),
    balance_asset: z.string().optional(),
    direction: z.enum(["CREDIT", "DEBIT"]),
    type: z.enum(TRANSFER_TYPES),
    status: z.enum(["PENDING", "COMPLETED", "FAILED"]),
    created_at: dateTime,
    updated_at: dateTime,
    metadata: stringMap.optional(),
    destination_address: z.string().optional(),
    crypto_network: z.enum(CRYPTO_NETWORK_ENUM).optional(),
    crypto_tx_hash: z.string().optional(),
    crypto_tx_index: z.string().optional(),
    account_id: z.string().optional(),
    group_id: z.string().optional(),
    memo: z.string().optional(),
  }),
  InitiateSandboxFiatDepositResponse: z.strictObject({}),
  CreateSandboxDepositResponse: z.strictObject({ activity_id: z.string().optional() }),
  Problem: z.strictObject({
    type: z.string().refine((v) => v === "about:blank" || URL.canParse(v), "format: uri"),
    title: z.string(),
    status: z.number().int().min(100).lt(600),
    detail: z.string().optional(),
    meta: z.record(z.string(), z.unknown()).optional(),
  }),
}

/** Market data (paxos-v2-market-data.openapi.json): its schemas, which win over its examples. */
const HISTORY_MARKETS = [
  "ETHEUR", "ETHUSD", "BTCEUR", "BTCUSD", "PAXGUSD", "BCHUSD", "LTCUSD", "ETHGBP", "BTCGBP", "LTCGBP", "BCHGBP",
  "USDPUSD", "ETHBRL", "BTCBRL", "LTCBRL", "BCHBRL", "USDPGBP", "USDPBRL", "LINKUSD", "MATICUSD", "AAVEUSD", "UNIUSD",
  "AAVEMXN", "BCHMXN", "BTCMXN", "ETHMXN", "LTCMXN", "USDPMXN", "AAVEEUR", "BCHEUR", "LTCEUR", "LINKEUR", "MATICEUR",
  "PAXGEUR", "SOLEUR", "USDPEUR", "UNIEUR", "PYUSDEUR", "PYUSDGBP",
  // The sandbox's SGD crosses, which the Market enum lists.
  "ETHSGD", "BTCSGD",
] as const
const PRICE_MARKETS = ["ETHUSD", "BTCUSD", "PAXGUSD", "BCHUSD", "LTCUSD", "USDPUSD", "LINKUSD", "MATICUSD", "AAVEUSD", "UNIUSD"] as const
const bookLevel = z.strictObject({ price: decimal, amount: decimal })
const exchangeStats = z.strictObject({
  high: decimal,
  low: decimal,
  open: decimal,
  volume: decimal,
  volume_weighted_average_price: decimal.optional(),
  range: z.strictObject({ begin: dateTime, end: dateTime }).optional(),
})
export const marketData = {
  ListMarketsResponse: z.strictObject({
    markets: z.array(
      z.strictObject({ market: z.enum(OPENAPI_MARKETS), base_asset: z.string(), quote_asset: z.string(), tick_rate: decimal }),
    ),
  }),
  TickerRecord: z.strictObject({
    market: z.enum(HISTORY_MARKETS),
    best_bid: bookLevel,
    best_ask: bookLevel,
    last_execution: bookLevel.optional(),
    last_day: exchangeStats,
    today: exchangeStats,
    snapshot_at: dateTime,
  }),
  ListPricesResponse: z.strictObject({
    items: z.array(
      z.strictObject({ market: z.enum(PRICE_MARKETS), current_price: decimal, yesterday_price: decimal, snapshot_at: dateTime }),
    ),
  }),
  ListHistoricalPricesResponse: z.strictObject({
    total_count: z.number().int().min(0).max(2_147_483_647),
    items: z.array(z.strictObject({ average_price: decimal, timestamp: dateTime })),
  }),
}

export const responses = {
  ListQuotesResponse: z.strictObject({ items: z.array(openapi.Quote) }),
  ListProfilesResponse: z.strictObject({
    items: z.array(openapi.Profile),
    next_page_cursor: z.string().optional(),
  }),
  ListProfileBalancesResponse: z.strictObject({ items: z.array(openapi.ProfileBalance) }),
  ListQuoteExecutionsResponse: z.strictObject({
    total_count: z.number().int().min(0).max(2_147_483_647).optional(),
    items: z.array(openapi.QuoteExecution),
    next_page_cursor: z.string().optional(),
  }),
  ListStablecoinConversionsResponse: z.strictObject({
    items: z.array(openapi.StablecoinConversion),
    next_page_cursor: z.string().optional(),
  }),
  /** The newer reference: `items`, and the deprecated `orchestrations` (the sandbox answers both, same content). */
  ListOrchestrationsResponse: z
    .strictObject({
      items: z.array(openapi.Orchestration),
      orchestrations: z.array(openapi.Orchestration),
      next_page_cursor: z.string().optional(),
    })
    .refine((page) => JSON.stringify(page.items) === JSON.stringify(page.orchestrations), "items and orchestrations differ"),
  ListEventsResponse: z.strictObject({ events: z.array(openapi.Event), next_page_cursor: z.string().optional() }),
  ListTransfersResponse: z.strictObject({ items: z.array(openapi.Transfer), next_page_cursor: z.string().optional() }),
  /** RFC 6749 §5.1. */
  TokenResponse: z.strictObject({
    access_token: z.string().min(20),
    expires_in: z.number().int().positive(),
    scope: z.string(),
    token_type: z.literal("bearer"),
  }),
  /** RFC 6749 §5.2. */
  TokenError: z.strictObject({
    error: z.enum(["invalid_request", "invalid_client", "invalid_grant", "unauthorized_client", "unsupported_grant_type", "invalid_scope"]),
    error_description: z.string().optional(),
  }),
  FaultSettings: z.strictObject({
    seed: z.number().int(),
    settle_delay_ms: z.number().int().min(0),
    quote_ttl_ms: z.number().int().min(1),
    rate_limits: z.boolean(),
    rules: z.array(z.record(z.string(), z.unknown())),
    orchestration_approval: z.boolean(),
    deposit_delay_ms: z.number().int().min(0),
    webhook_url: z.string().nullable(),
    webhook_api_key_header: z.string().nullable(),
    webhook_api_key_set: z.boolean(),
  }),
}

/** The success schema for a route, by method and path below /sandbox. */
function successSchema(method: string, path: string): z.ZodType | null {
  const p = path.split("?")[0] ?? path
  const routes: [string, RegExp, z.ZodType][] = [
    ["POST", /^\/oauth2\/token$/, responses.TokenResponse],
    ["GET", /^\/v2\/quotes$/, responses.ListQuotesResponse],
    ["GET", /^\/v2\/profiles$/, responses.ListProfilesResponse],
    ["GET", /^\/v2\/profiles\/[^/]+$/, openapi.Profile],
    ["GET", /^\/v2\/profiles\/[^/]+\/balances$/, responses.ListProfileBalancesResponse],
    ["GET", /^\/v2\/profiles\/[^/]+\/balances\/[^/]+$/, openapi.ProfileBalance],
    ["POST", /^\/v2\/profiles\/[^/]+\/quote-executions$/, openapi.QuoteExecution],
    ["GET", /^\/v2\/profiles\/[^/]+\/quote-executions$/, responses.ListQuoteExecutionsResponse],
    ["GET", /^\/v2\/profiles\/[^/]+\/quote-executions\/[^/]+$/, openapi.QuoteExecution],
    ["POST", /^\/v2\/conversion\/stablecoins$/, openapi.StablecoinConversion],
    ["GET", /^\/v2\/conversion\/stablecoins$/, responses.ListStablecoinConversionsResponse],
    ["GET", /^\/v2\/conversion\/stablecoins\/[^/]+$/, openapi.StablecoinConversion],
    ["DELETE", /^\/v2\/conversion\/stablecoins\/[^/]+$/, openapi.StablecoinConversion],
    ["POST", /^\/v2\/orchestration\/orchestrations$/, openapi.Orchestration],
    ["GET", /^\/v2\/orchestration\/orchestrations$/, responses.ListOrchestrationsResponse],
    ["GET", /^\/v2\/orchestration\/orchestrations\/[^/]+$/, openapi.Orchestration],
    ["POST", /^\/v2\/sandbox\/profiles\/[^/]+\/deposit$/, openapi.CreateSandboxDepositResponse],
    ["POST", /^\/v2\/sandbox\/fiat-deposits$/, openapi.InitiateSandboxFiatDepositResponse],
    ["GET", /^\/v2\/events$/, responses.ListEventsResponse],
    ["GET", /^\/v2\/events\/[^/]+$/, openapi.Event],
    ["GET", /^\/v2\/transfer\/transfers$/, responses.ListTransfersResponse],
    ["GET", /^\/v2\/transfer\/transfers\/[^/]+$/, openapi.Transfer],
    ["POST", /^\/admin\/orchestrations\/[^/]+\/(approve|reject)$/, openapi.Orchestration],
    ["GET", /^\/v2\/markets$/, marketData.ListMarketsResponse],
    ["GET", /^\/v2\/markets\/[^/]+\/ticker$/, marketData.TickerRecord],
    ["GET", /^\/v2\/markets\/[^/]+\/historical-prices$/, marketData.ListHistoricalPricesResponse],
    ["GET", /^\/v2\/all-markets\/ticker$/, z.strictObject({ tickers: z.array(marketData.TickerRecord) })],
    ["GET", /^\/v2\/all-markets\/prices$/, marketData.ListPricesResponse],
    ["GET", /^\/admin\/faults$/, responses.FaultSettings],
    ["PUT", /^\/admin\/faults$/, responses.FaultSettings],
  ]
  return routes.find(([m, re]) => m === method && re.test(p))?.[2] ?? null
}

/** Checks a response body against the contract: the route's schema, a problem, or an OAuth error. */
export function expectValidResponse(method: string, path: string, status: number, contentType: string, body: unknown) {
  if (path.startsWith("/oauth2/token") && status !== 200 && status !== 429 && status < 500) {
    expect(contentType).toMatch(/^application\/json/)
    expect(responses.TokenError.safeParse(body).error?.issues ?? []).toEqual([])
    return
  }
  if (status >= 400) {
    expect(contentType).toMatch(/^application\/problem\+json/)
    expect(openapi.Problem.safeParse(body).error?.issues ?? []).toEqual([])
    expect((body as { status: number }).status).toBe(status)
    const type = (body as { type: string }).type
    if (type !== "about:blank") expect(type).toMatch(/^https:\/\/developer\.paxos\.com\/docs\/v2\/problems\/[a-z-]+$/)
    return
  }
  const schema = successSchema(method, path)
  if (!schema) return
  expect(contentType).toMatch(/^application\/json/)
  expect(schema.safeParse(body).error?.issues ?? []).toEqual([])
}

/** Every amount in a JSON body is a string: no JSON numbers for money, anywhere. */
export function expectNoNumericAmounts(body: unknown) {
  const walk = (value: unknown, key: string) => {
    if (typeof value === "number") {
      expect(["status", "total_count", "expires_in", "seed", "settle_delay_ms", "rate", "latency_ms", "token_ttl_s", "quote_ttl_ms", "undelivered_webhooks", "deposit_delay_ms"]).toContain(key)
    } else if (Array.isArray(value)) value.forEach((v) => walk(v, key))
    else if (value && typeof value === "object") for (const [k, v] of Object.entries(value)) walk(v, k)
  }
  walk(body, "")
}

// ------------------------------------------------------------------ harness

export const TEST_CONFIG: SandboxConfig = {
  tokenTtlS: 3599,
  quoteTtlMs: 30_000,
  settleDelayMs: 2000,
  rateLimits: false,
  maxExecutionUsd: 50_000,
  maxConversionUsd: 1_000_000,
  seed: 7,
}

export const ALL_SCOPES = SANDBOX_SCOPES

export interface ApiResponse<T = unknown> {
  status: number
  headers: Headers
  body: T
}

export type Send = (request: Request) => Promise<Response>

/** A tiny client of the sandbox that checks every answer against the contract. */
export class SandboxClient {
  constructor(
    readonly origin: string,
    readonly send: Send,
    readonly credentials: { clientId: string; clientSecret: string },
  ) {}

  private tokens = new Map<string, string>()

  async request<T = unknown>(
    method: string,
    path: string,
    options: { token?: string | null; body?: unknown; headers?: Record<string, string>; signal?: AbortSignal } = {},
  ): Promise<ApiResponse<T>> {
    const headers = new Headers(options.headers)
    const token = options.token === undefined ? await this.token() : options.token
    if (token) headers.set("authorization", `Bearer ${token}`)
    let body: string | undefined
    if (options.body !== undefined) {
      body = typeof options.body === "string" ? options.body : JSON.stringify(options.body)
      if (!headers.has("content-type")) headers.set("content-type", "application/json")
    }
    const init: RequestInit = { method, headers }
    if (body !== undefined) init.body = body
    if (options.signal) init.signal = options.signal
    const response = await this.send(new Request(`${this.origin}/sandbox${path}`, init))
    const text = await response.text()
    const parsed: unknown = text === "" ? null : JSON.parse(text)
    expectValidResponse(method, path, response.status, response.headers.get("content-type") ?? "", parsed)
    if (response.status < 300) expectNoNumericAmounts(parsed)
    return { status: response.status, headers: response.headers, body: parsed as T }
  }

  async tokenRequest(form: Record<string, string>, headers: Record<string, string> = {}): Promise<ApiResponse<Record<string, unknown>>> {
    const response = await this.send(
      new Request(`${this.origin}/sandbox/oauth2/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
        body: new URLSearchParams(form).toString(),
      }),
    )
    const body = (await response.json()) as Record<string, unknown>
    expectValidResponse("POST", "/oauth2/token", response.status, response.headers.get("content-type") ?? "", body)
    return { status: response.status, headers: response.headers, body }
  }

  /** A raw call below /sandbox, for what the checked helpers cannot send. */
  raw(path: string, init: RequestInit): Promise<Response> {
    return this.send(new Request(`${this.origin}/sandbox${path}`, init))
  }

  /** A token with `scopes` (all by default), cached per scope set. */
  async token(scopes: readonly string[] = ALL_SCOPES): Promise<string> {
    const key = scopes.join(" ")
    const cached = this.tokens.get(key)
    if (cached) return cached
    const { status, body } = await this.tokenRequest({
      grant_type: "client_credentials",
      client_id: this.credentials.clientId,
      client_secret: this.credentials.clientSecret,
      scope: key,
    })
    expect(status).toBe(200)
    const token = body.access_token as string
    this.tokens.set(key, token)
    return token
  }

  forgetTokens() {
    this.tokens.clear()
  }
}

export interface TestSandbox {
  database: Database
  sandbox: Sandbox
  clock: FakeClock
  client: SandboxClient
  profiles: { treasury: string; omnibus: string; float: string }
  close(): Promise<void>
}

/** A sandbox on a fresh, migrated database of `driver`, called in-process through `fetch`. */
export async function startTestSandbox(
  driver: TestDriver,
  config: Partial<SandboxConfig> = {},
  options: Pick<SandboxOptions, "webhookSend"> = {},
): Promise<TestSandbox> {
  const database = await createTestDatabase(driver)
  const clock = new FakeClock({ running: true })
  const sandbox = createSandbox({
    db: database.db,
    config: { ...TEST_CONFIG, ...config },
    now: clock.date,
    clientId: "test-client",
    clientSecret: "test-secret-that-is-long-enough",
    ...options,
  })
  const credentials = await sandbox.ensureClient()
  const client = new SandboxClient("http://sandbox.internal", (r) => sandbox.fetch(r), credentials)
  const { body } = await client.request<{ items: { id: string; nickname: string }[] }>("GET", "/v2/profiles")
  const byName = (name: string) => body.items.find((p) => p.nickname === name)?.id ?? ""
  return {
    database,
    sandbox,
    clock,
    client,
    profiles: { treasury: byName("Treasury"), omnibus: byName("Client omnibus"), float: byName("Operations float") },
    close: async () => {
      await sandbox.stop()
      await database.close()
    },
  }
}

export interface WireBalanceBody {
  items: { asset: string; available: string; trading: string }[]
}

export async function balanceOf(client: SandboxClient, profileId: string, asset: string) {
  const { body } = await client.request<WireBalanceBody>("GET", `/v2/profiles/${profileId}/balances?assets=${asset}`)
  const item = body.items[0]
  if (!item) throw new Error(`no ${asset} balance`)
  return item
}

/** A quote as the sandbox answers it: the sandbox's own wire type. */
export type WireQuoteBody = WireQuote

export async function quoteFor(client: SandboxClient, market: string, side: "BUY" | "SELL"): Promise<WireQuoteBody> {
  const { status, body } = await client.request<{ items: WireQuoteBody[] }>("GET", `/v2/quotes?markets=${market}`)
  expect(status).toBe(200)
  const quote = body.items.find((q) => q.side === side)
  if (!quote) throw new Error(`no ${side} quote for ${market}`)
  return quote
}
