import "server-only"
import {
  balanceListSchema,
  profilePageSchema,
  profileSchema,
  type QuoteExecution,
  quoteExecutionPageSchema,
  quoteExecutionSchema,
  quoteListSchema,
} from "@/lib/schemas/records"
import { silentMovementAnswerSchema } from "@/lib/schemas/silent-movement"
import { lostRecordAnswerSchema } from "@/lib/schemas/lost-record"
import { sandboxHistoryAnswerSchema } from "@/lib/schemas/sandbox-history"
import { defaultNetwork, sandboxDepositResponseSchema, sandboxSettingsSchema } from "@/lib/schemas/sandbox-tools"
import type { ConversionsApi } from "@/lib/schemas/constants"
import {
  listHistoricalPricesResponseSchema,
  listMarketsResponseSchema,
  listPricesResponseSchema,
  listTickersResponseSchema,
  tickerSchema,
} from "@/lib/schemas/market-data"
import { SANDBOX_ADMIN_SCOPE } from "@/lib/schemas/scopes"
import { type QueryValue, alreadyExists, requireRefId, seg, withQuery } from "@/lib/upstream/api-context"
import { UpstreamConfigError } from "@/lib/upstream/errors"
import { createEventOperations } from "@/lib/upstream/events"
import { isSameQuoteExecution } from "@/lib/upstream/matching"
import type { ConversionOperations, UpstreamClient } from "@/lib/upstream/operations"
import { createOrchestrationAdapter } from "@/lib/upstream/orchestrations"
import { DEFAULT_RATE_LIMITS, type Limiter, RateLimiter, type RateLimits } from "@/lib/upstream/rate-limiter"
import { DEFAULT_RETRY_POLICY, type RetryPolicy, createCaller } from "@/lib/upstream/request"
import { createStablecoinConversionAdapter } from "@/lib/upstream/stablecoin-conversions"
import { getTransfer, listTransfers } from "@/lib/upstream/transfers"
import { createTokenManager } from "@/lib/upstream/token-manager"
import { type RequestTimer, type UpstreamFetch, type UpstreamLogEvent, realTimeout } from "@/lib/upstream/transport"

export interface UpstreamClientConfig {
  /** API base, ending in /v2 (e.g. https://api.paxos.com/v2, http://sandbox.internal/sandbox/v2). */
  baseUrl: string
  tokenUrl: string
  clientId: string
  clientSecret: string
  /** Scopes asked for the one token every API call uses. */
  scopes: readonly string[]
  /** Per HTTP request, token requests included unless `tokenTimeoutMs` says otherwise. */
  timeoutMs: number
  /** Per token request; default `timeoutMs`. */
  tokenTimeoutMs?: number
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

function validateConfig(config: UpstreamClientConfig): void {
  const problems: string[] = []
  if (!URL.canParse(config.baseUrl)) problems.push("baseUrl must be a URL")
  if (!URL.canParse(config.tokenUrl)) problems.push("tokenUrl must be a URL")
  if (!config.clientId) problems.push("clientId is required")
  if (!config.clientSecret) problems.push("clientSecret is required")
  if (config.scopes.length === 0) problems.push("scopes must not be empty")
  if (!(config.timeoutMs > 0)) problems.push("timeoutMs must be more than 0")
  if (config.tokenTimeoutMs !== undefined && !(config.tokenTimeoutMs > 0)) problems.push("tokenTimeoutMs must be more than 0")
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
    { ...baseRuntime, timeoutMs: config.tokenTimeoutMs ?? config.timeoutMs },
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
    async ensureToken() {
      await tokens.get(scopes, "token")
    },

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

    ...createEventOperations({ call, apiUrl, scopes }),
    listTransfers: (filters) => listTransfers({ call, apiUrl, scopes }, filters),
    getTransfer: (id) => getTransfer({ call, apiUrl, scopes }, id),

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

    async sandboxSilentMovement(input) {
      const { value } = await call({
        op: "sandboxSilentMovement",
        method: "POST",
        url: new URL(`${adminBase}/silent-movements`),
        body: input,
        scopes: adminScopes,
        schema: silentMovementAnswerSchema,
        retry: false,
        mutating: true,
      })
      return value
    },

    async sandboxLoseRecord(input) {
      const { value } = await call({
        op: "sandboxLoseRecord",
        method: "POST",
        url: new URL(`${adminBase}/lost-records`),
        body: input,
        scopes: adminScopes,
        schema: lostRecordAnswerSchema,
        retry: false,
        mutating: true,
      })
      return value
    },

    async sandboxHistory(input) {
      const { value } = await call({
        op: "sandboxHistory",
        method: "POST",
        url: new URL(`${adminBase}/history`),
        body: input,
        scopes: adminScopes,
        schema: sandboxHistoryAnswerSchema,
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
