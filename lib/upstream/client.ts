import "server-only"
import type { z } from "zod"
import type { ConversionCreate, ConversionListQuery } from "@/lib/schemas/conversion"
import type { QuoteExecutionCreate, QuoteExecutionListQuery } from "@/lib/schemas/quote-execution"
import {
  type Balance,
  balanceListSchema,
  type Conversion,
  type ConversionPage,
  conversionPageSchema,
  conversionSchema,
  type Profile,
  profilePageSchema,
  profileSchema,
  type Quote,
  type QuoteExecution,
  type QuoteExecutionPage,
  quoteExecutionPageSchema,
  quoteExecutionSchema,
  quoteListSchema,
} from "@/lib/schemas/records"
import {
  type FaultSettingsUpdate,
  type SandboxDeposit,
  type SandboxDepositResponse,
  type SandboxSettings,
  defaultNetwork,
  sandboxDepositResponseSchema,
  sandboxSettingsSchema,
} from "@/lib/schemas/sandbox-tools"
import type { ConversionsApi } from "@/lib/schemas/constants"
import {
  type HistoricalPrice,
  type HistoryIncrement,
  type MarketPrice,
  type Ticker,
  listHistoricalPricesResponseSchema,
  listMarketsResponseSchema,
  listPricesResponseSchema,
  listTickersResponseSchema,
  tickerSchema,
} from "@/lib/schemas/market-data"
import { SANDBOX_ADMIN_SCOPE } from "@/lib/schemas/scopes"
import { UpstreamConfigError, UpstreamConflictError, type UpstreamProblem, UpstreamResponseError } from "@/lib/upstream/errors"
import { isSameConversion, isSameQuoteExecution } from "@/lib/upstream/matching"
import { createOrchestrationAdapter } from "@/lib/upstream/orchestrations"
import { DEFAULT_RATE_LIMITS, type Limiter, RateLimiter, type RateLimits } from "@/lib/upstream/rate-limiter"
import { type AlreadyExistsVerdict, type CallSpec, createCaller, DEFAULT_RETRY_POLICY, type RetryPolicy } from "@/lib/upstream/request"
import { createTokenManager } from "@/lib/upstream/token-manager"
import { realTimeout, type RequestTimer, type UpstreamFetch, type UpstreamLogEvent } from "@/lib/upstream/transport"


export interface UpstreamClientConfig {
  /** API base, ending in /v2 (e.g. https://api.paxos.com/v2, http://sandbox.internal/sandbox/v2). */
  baseUrl: string
  tokenUrl: string
  clientId: string
  clientSecret: string
  /** Scopes asked for the one token every API call uses. */
  scopes: readonly string[]
  /** Per HTTP request, token requests included. */
  timeoutMs: number
  /** Where the sandbox admin API lives; default: the base URL's parent + /admin. */
  adminBaseUrl?: string
  fetch?: UpstreamFetch
  now?: () => number
  sleep?: (ms: number) => Promise<void>
  random?: () => number
  /** Builds the per-request timeout; tests inject one driven by a fake clock. */
  timeout?: (ms: number) => RequestTimer
  limits?: Partial<RateLimits>
  /** A limiter shared with other instances; default: this client's own, with `limits`. */
  limiter?: Limiter
  retry?: Partial<RetryPolicy>
  log?: (event: UpstreamLogEvent) => void
  /**
   * Which of the service's conversion APIs the conversion calls use (default
   * stablecoin-conversions); a function when it can change while the process runs.
   */
  conversionsApi?: ConversionsApi | (() => Promise<ConversionsApi>)
}

/** Every create names its ref_id: the only thing that makes a retry safe. */
export type QuoteExecutionCreateInput = QuoteExecutionCreate & { ref_id: string }
export type ConversionCreateInput = ConversionCreate & { ref_id: string }

export interface CreateResult<T> {
  record: T
  /** The service already had this record (409 Already Exists naming the same request). */
  replayed: boolean
  /** HTTP attempts the create took, 1 to 3. */
  attempts: number
}

export type ProfilePage = z.infer<typeof profilePageSchema>
export interface ProfileListQuery {
  limit?: number | undefined
  page_cursor?: string | undefined
}

export interface QuoteOperations {
  /** Held quotes for each market, both sides; no markets: every market (the service's default). */
  listQuotes(markets: readonly string[]): Promise<Quote[]>
}

export interface ProfileOperations {
  listProfiles(query?: ProfileListQuery): Promise<ProfilePage>
  getProfile(profileId: string): Promise<Profile>
  listBalances(profileId: string, assets?: readonly string[]): Promise<Balance[]>
}

export interface QuoteExecutionOperations {
  createQuoteExecution(profileId: string, body: QuoteExecutionCreateInput): Promise<CreateResult<QuoteExecution>>
  getQuoteExecution(profileId: string, id: string): Promise<QuoteExecution>
  listQuoteExecutions(profileId: string, query?: QuoteExecutionListQuery): Promise<QuoteExecutionPage>
}

/**
 * Stablecoin conversions. An interface of its own because the service replaces this API
 * with /v2/orchestration/orchestrations: a second adapter can implement the same calls.
 */
export interface ConversionOperations {
  createConversion(body: ConversionCreateInput): Promise<CreateResult<Conversion>>
  getConversion(id: string): Promise<Conversion>
  listConversions(query?: ConversionListQuery): Promise<ConversionPage>
  /** Not retried: a second DELETE after a lost answer would only meet a 409. */
  cancelConversion(id: string): Promise<Conversion>
}

export interface SandboxOperations {
  /** Sandbox only: funds a profile. Not retried (it carries no ref_id). */
  sandboxDeposit(profileId: string, input: Pick<SandboxDeposit, "asset" | "amount">): Promise<SandboxDepositResponse>
  getFaults(): Promise<SandboxSettings>
  /** Fields left out keep their current value; `{"rules": []}` clears every fault. */
  putFaults(body: FaultSettingsUpdate): Promise<SandboxSettings>
}

export interface HistoricalPricesQuery {
  /** Exactly one of `increment` and `maxDataPoints`. */
  increment?: HistoryIncrement | undefined
  maxDataPoints?: number | undefined
  begin?: Date | undefined
  end?: Date | undefined
  /** At most 1,000 (the service's maximum); 100 when left out. */
  limit?: number | undefined
  offset?: number | undefined
}

export interface MarketDataOperations {
  listMarkets(): Promise<{ market: string; base_asset: string; quote_asset: string; tick_rate: string }[]>
  getTicker(market: string): Promise<Ticker>
  listTickers(): Promise<Ticker[]>
  /** Current and 24-hours-ago prices of USD markets. */
  listPrices(markets: readonly string[]): Promise<MarketPrice[]>
  listHistoricalPrices(market: string, query: HistoricalPricesQuery): Promise<{ total_count: number; items: HistoricalPrice[] }>
}

/**
 * The client. Its conversion calls go to the conversion API in use when they are made;
 * `conversionsVia` reaches one API whatever is in use (a record is looked up through the
 * API that placed it).
 */
export interface UpstreamClient
  extends MarketDataOperations,
    QuoteOperations,
    ProfileOperations,
    QuoteExecutionOperations,
    ConversionOperations,
    SandboxOperations {
  conversionsApi(): Promise<ConversionsApi>
  conversionsVia(api: ConversionsApi): ConversionOperations
}

type QueryValue = string | number | readonly string[] | undefined
function withQuery(url: URL, query: Record<string, QueryValue> | undefined): URL {
  if (!query) return url
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue
    if (typeof value === "string" || typeof value === "number") url.searchParams.append(key, String(value))
    else for (const item of value) url.searchParams.append(key, item)
  }
  return url
}

export const seg = (value: string) => encodeURIComponent(value)

/** The part of the calls every adapter shares: URLs, scopes, the caller. */
export interface ApiContext {
  call: ReturnType<typeof createCaller>
  apiUrl: (path: string, query?: Record<string, QueryValue>) => URL
  scopes: readonly string[]
}

export function alreadyExists<T>(
  kind: "quote_execution" | "conversion",
  schema: z.ZodType<T>,
  op: string,
  matches: (record: T) => boolean,
): (problem: UpstreamProblem) => AlreadyExistsVerdict<T> {
  return (problem) => {
    const parsed = schema.safeParse(problem.meta?.existing)
    if (!parsed.success) {
      throw new UpstreamResponseError(`409 Already Exists without a readable meta.existing (${op})`, {
        outcome: "unknown",
        operation: op,
        mutating: true,
        status: 409,
      })
    }
    if (matches(parsed.data)) return { kind: "replayed", record: parsed.data }
    const existing =
      kind === "quote_execution"
        ? { kind, record: parsed.data as QuoteExecution }
        : { kind, record: parsed.data as Conversion }
    return {
      kind: "conflict",
      error: new UpstreamConflictError({ ...problem, meta: { existing: parsed.data } }, existing, { operation: op, mutating: true }),
    }
  }
}

export function requireRefId(op: string, refId: string | undefined): void {
  if (typeof refId !== "string" || refId.trim() === "") {
    throw new UpstreamConfigError(`${op} needs a ref_id: without one a retry could place it twice`, { operation: op })
  }
}

/** The conversion API of the service interface (/v2/conversion/stablecoins). */
export function createStablecoinConversionAdapter(ctx: ApiContext): ConversionOperations {
  const read = { method: "GET" as const, scopes: ctx.scopes, retry: true, mutating: false }
  return {
    async createConversion(body) {
      const op = "createConversion"
      requireRefId(op, body.ref_id)
      const spec: CallSpec<Conversion> = {
        op,
        method: "POST",
        url: ctx.apiUrl("/conversion/stablecoins"),
        body,
        scopes: ctx.scopes,
        schema: conversionSchema,
        retry: true,
        mutating: true,
        onAlreadyExists: alreadyExists("conversion", conversionSchema, op, (existing) => isSameConversion(body, existing)),
      }
      const { value, replayed, attempts } = await ctx.call(spec)
      return { record: value, replayed, attempts }
    },
    async getConversion(id) {
      const url = ctx.apiUrl(`/conversion/stablecoins/${seg(id)}`)
      return (await ctx.call({ ...read, op: "getConversion", url, schema: conversionSchema })).value
    },
    async listConversions(query) {
      const url = ctx.apiUrl("/conversion/stablecoins", query)
      return (await ctx.call({ ...read, op: "listConversions", url, schema: conversionPageSchema })).value
    },
    async cancelConversion(id) {
      const url = ctx.apiUrl(`/conversion/stablecoins/${seg(id)}`)
      const spec: CallSpec<Conversion> = {
        op: "cancelConversion",
        method: "DELETE",
        url,
        scopes: ctx.scopes,
        schema: conversionSchema,
        retry: false,
        mutating: true,
      }
      return (await ctx.call(spec)).value
    },
  }
}

function validateConfig(config: UpstreamClientConfig): void {
  const problems: string[] = []
  if (!URL.canParse(config.baseUrl)) problems.push("baseUrl must be a URL")
  if (!URL.canParse(config.tokenUrl)) problems.push("tokenUrl must be a URL")
  if (!config.clientId) problems.push("clientId is required")
  if (!config.clientSecret) problems.push("clientSecret is required")
  if (config.scopes.length === 0) problems.push("scopes must not be empty")
  if (!(config.timeoutMs > 0)) problems.push("timeoutMs must be more than 0")
  if (problems.length > 0) throw new UpstreamConfigError(`invalid upstream client configuration: ${problems.join("; ")}`)
}

/**
 * The typed client of the service interface. Holds the OAuth credentials; every call
 * gets a token (cached per scope set), passes the rate limiter, has a timeout,
 * and parses the answer with zod. Reads and creates are retried; nothing else is.
 */
export function createUpstreamClient(config: UpstreamClientConfig): UpstreamClient {
  validateConfig(config)
  const now = config.now ?? (() => Date.now())
  const sleep = config.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)))
  const userLog = config.log
  const log = (event: UpstreamLogEvent) => {
    if (!userLog) return
    try {
      userLog(event)
    } catch {
      // Logging must never break a call.
    }
  }
  const limiter = config.limiter ?? new RateLimiter({ ...DEFAULT_RATE_LIMITS, ...config.limits }, { now, sleep })
  const baseRuntime = {
    fetch: config.fetch ?? ((request: Request) => fetch(request)),
    now,
    sleep,
    random: config.random ?? (() => Math.random()),
    timeout: config.timeout ?? realTimeout,
    timeoutMs: config.timeoutMs,
    limiter,
    log,
  }
  const tokens = createTokenManager(
    { tokenUrl: config.tokenUrl, clientId: config.clientId, clientSecret: config.clientSecret },
    baseRuntime,
  )
  const call = createCaller({ ...baseRuntime, redact: tokens.redact }, tokens, { ...DEFAULT_RETRY_POLICY, ...config.retry })

  const base = config.baseUrl.replace(/\/+$/, "")
  const adminBase = (config.adminBaseUrl ?? `${base.replace(/\/v2$/, "")}/admin`).replace(/\/+$/, "")
  const apiUrl = (path: string, query?: Record<string, QueryValue>) => withQuery(new URL(`${base}${path}`), query)
  const scopes = [...config.scopes]
  const adminScopes = [SANDBOX_ADMIN_SCOPE]
  const read = { method: "GET" as const, scopes, retry: true, mutating: false }

  const adapters: Record<ConversionsApi, ConversionOperations> = {
    "stablecoin-conversions": createStablecoinConversionAdapter({ call, apiUrl, scopes }),
    orchestrations: createOrchestrationAdapter({ call, apiUrl, scopes }),
  }
  const chosen = config.conversionsApi ?? "stablecoin-conversions"
  const conversionsApi = typeof chosen === "function" ? chosen : () => Promise.resolve(chosen)
  const inUse = async () => adapters[await conversionsApi()]
  const conversions: ConversionOperations & Pick<UpstreamClient, "conversionsApi" | "conversionsVia"> = {
    conversionsApi,
    conversionsVia: (api) => adapters[api],
    createConversion: async (body) => (await inUse()).createConversion(body),
    getConversion: async (id) => (await inUse()).getConversion(id),
    listConversions: async (query) => (await inUse()).listConversions(query),
    cancelConversion: async (id) => (await inUse()).cancelConversion(id),
  }

  return {
    async listQuotes(markets) {
      const url = apiUrl("/quotes", { markets })
      return (await call({ ...read, op: "listQuotes", url, schema: quoteListSchema })).value.items
    },

    async listProfiles(query) {
      const url = apiUrl("/profiles", { limit: query?.limit, page_cursor: query?.page_cursor })
      return (await call({ ...read, op: "listProfiles", url, schema: profilePageSchema })).value
    },

    async getProfile(profileId) {
      const url = apiUrl(`/profiles/${seg(profileId)}`)
      return (await call({ ...read, op: "getProfile", url, schema: profileSchema })).value
    },

    async listBalances(profileId, assets) {
      const url = apiUrl(`/profiles/${seg(profileId)}/balances`, { assets })
      return (await call({ ...read, op: "listBalances", url, schema: balanceListSchema })).value.items
    },

    async createQuoteExecution(profileId, body) {
      const op = "createQuoteExecution"
      requireRefId(op, body.ref_id)
      const { value, replayed, attempts } = await call<QuoteExecution>({
        op,
        method: "POST",
        url: apiUrl(`/profiles/${seg(profileId)}/quote-executions`),
        body,
        scopes,
        schema: quoteExecutionSchema,
        retry: true,
        mutating: true,
        onAlreadyExists: alreadyExists("quote_execution", quoteExecutionSchema, op, (existing) =>
          isSameQuoteExecution(profileId, body, existing),
        ),
      })
      return { record: value, replayed, attempts }
    },

    async getQuoteExecution(profileId, id) {
      const url = apiUrl(`/profiles/${seg(profileId)}/quote-executions/${seg(id)}`)
      return (await call({ ...read, op: "getQuoteExecution", url, schema: quoteExecutionSchema })).value
    },

    async listQuoteExecutions(profileId, query) {
      const url = apiUrl(`/profiles/${seg(profileId)}/quote-executions`, query)
      return (await call({ ...read, op: "listQuoteExecutions", url, schema: quoteExecutionPageSchema })).value
    },

    ...conversions,

    async listMarkets() {
      return (await call({ ...read, op: "listMarkets", url: apiUrl("/markets"), schema: listMarketsResponseSchema })).value.markets
    },

    async getTicker(market) {
      const url = apiUrl(`/markets/${seg(market)}/ticker`)
      return (await call({ ...read, op: "getTicker", url, schema: tickerSchema })).value
    },

    async listTickers() {
      return (await call({ ...read, op: "listTickers", url: apiUrl("/all-markets/ticker"), schema: listTickersResponseSchema })).value.tickers
    },

    async listPrices(markets) {
      const url = apiUrl("/all-markets/prices", { markets })
      return (await call({ ...read, op: "listPrices", url, schema: listPricesResponseSchema })).value.items
    },

    async listHistoricalPrices(market, query) {
      const url = apiUrl(`/markets/${seg(market)}/historical-prices`, {
        increment: query.increment,
        max_data_points: query.maxDataPoints,
        "range.begin": query.begin?.toISOString(),
        "range.end": query.end?.toISOString(),
        "pagination.limit": query.limit,
        "pagination.offset": query.offset,
      })
      return (await call({ ...read, op: "listHistoricalPrices", url, schema: listHistoricalPricesResponseSchema })).value
    },

    async sandboxDeposit(profileId, input) {
      const { value } = await call({
        op: "sandboxDeposit",
        method: "POST",
        url: apiUrl(`/sandbox/profiles/${seg(profileId)}/deposit`),
        // A crypto deposit names its network, as the service requires: the asset's first documented one.
        body: { asset: input.asset, amount: input.amount, crypto_network: defaultNetwork(input.asset) },
        scopes,
        schema: sandboxDepositResponseSchema,
        retry: false,
        mutating: true,
      })
      return value
    },

    async getFaults() {
      const url = new URL(`${adminBase}/faults`)
      return (await call({ ...read, scopes: adminScopes, op: "getFaults", url, schema: sandboxSettingsSchema })).value
    },

    async putFaults(body) {
      const { value } = await call({
        op: "putFaults",
        method: "PUT",
        url: new URL(`${adminBase}/faults`),
        body,
        scopes: adminScopes,
        schema: sandboxSettingsSchema,
        retry: false,
        mutating: true,
      })
      return value
    },
  }
}
