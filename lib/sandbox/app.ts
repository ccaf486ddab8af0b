import "server-only"
import { randomUUID } from "node:crypto"
import { Hono } from "hono"
import type { Context, MiddlewareHandler } from "hono"
import { z } from "zod"
import type { Db } from "@/lib/db/client"
import { sandboxDeposits } from "@/lib/db/schema"
import { toDecimal } from "@/lib/money"
import { conversionCreateSchema, conversionListQuerySchema } from "@/lib/schemas/conversion"
import { quoteExecutionCreateSchema, quoteExecutionListQuerySchema } from "@/lib/schemas/quote-execution"
import { cancelConversion, createConversion, getConversion, listConversions } from "@/lib/sandbox/conversions"
import { createExecution, getExecution, listExecutions } from "@/lib/sandbox/executions"
import { type FaultInjector, HANG_CAP_MS, sleep } from "@/lib/sandbox/faults"
import { wireProfile, wireQuote } from "@/lib/sandbox/format"
import { creditFunds, listBalances } from "@/lib/sandbox/ledger"
import {
  ADMIN_SCOPE,
  OAuthError,
  type OAuthService,
  type Principal,
  type SandboxClient,
  presentedClientId,
  requireScope,
} from "@/lib/sandbox/oauth"
import { REJECT_THRESHOLD, SANDBOX_MARKETS, USD_REFERENCE_RATES, isSandboxMarket } from "@/lib/sandbox/pricing"
import { SandboxProblem, badRequest, genericProblem, problemResponse } from "@/lib/sandbox/problems"
import type { ProfileDirectory, ProfileListQuery } from "@/lib/sandbox/profiles"
import type { QuoteBook } from "@/lib/sandbox/quotes"
import { type RateLimiter, bucketFor } from "@/lib/sandbox/rate-limit"
import {
  type FaultOperation,
  SANDBOX_ASSETS,
  faultSettingsUpdateSchema,
  marketMoveSchema,
  sandboxDepositSchema,
} from "@/lib/sandbox/schemas"
import { type SettingsStore, publicSettings } from "@/lib/sandbox/settings"
import type { SettlementWorker } from "@/lib/sandbox/settlement"
import { listParam, parseOrThrow, queryFor, readJsonObject } from "@/lib/sandbox/validation"
import { BodyTooLarge, readBoundedText } from "@/lib/http/bounded-body"

/** A client-credentials form is a few hundred bytes. */
const TOKEN_BODY_LIMIT = 8 * 1024

/** What a request's response becomes after a "commit then fail" fault fired. */
export type AfterCommit = { kind: "status"; status: number } | { kind: "drop" }

export interface SandboxServices {
  db: Db
  now: () => Date
  ready: () => Promise<void>
  oauth: OAuthService
  quotes: QuoteBook
  profiles: ProfileDirectory
  settings: SettingsStore
  faults: FaultInjector
  limiter: RateLimiter
  worker: SettlementWorker
  /** Aborted by `stop()`: ends hangs and injected latency. */
  lifetime: AbortSignal
  /** Requests whose committed result must be replaced by a failure (see index.ts). */
  afterCommit: WeakMap<Request, AfterCommit>
  limits: { tokenTtlS: number; maxExecutionUsd: number; maxConversionUsd: number }
  log: (event: string, fields: Record<string, unknown>) => void
}

/** A token request's client: checked, or the error its request or credentials earned. */
type TokenClient = { client: SandboxClient } | { error: unknown }

type Env = { Variables: { principal: Principal; stored: boolean; form: URLSearchParams; tokenClient: TokenClient } }

const JSON_HEADERS = { "cache-control": "no-store" }

/** The sandbox as a Hono app: `/sandbox/oauth2/token`, `/sandbox/v2/…`, `/sandbox/admin/…`. */
export function createSandboxApp(s: SandboxServices): Hono<Env> {
  const app = new Hono<Env>().basePath("/sandbox")

  app.onError((error, c) => {
    if (error instanceof SandboxProblem) return problemResponse(error)
    if (error instanceof OAuthError) return error.toResponse()
    if (error instanceof BodyTooLarge) return problemResponse(genericProblem(413, error.message))
    if (c.req.raw.signal.aborted || s.lifetime.aborted) {
      return problemResponse(genericProblem(503, "the request was abandoned"))
    }
    s.log("sandbox.unexpected_error", {
      method: c.req.method,
      path: new URL(c.req.url).pathname,
      error: (error instanceof Error ? error.message : "unknown error").slice(0, 300),
    })
    return problemResponse(genericProblem(500, "unexpected error in the sandbox"))
  })
  app.notFound((c) => problemResponse(genericProblem(404, `no route for ${c.req.method} ${new URL(c.req.url).pathname}`)))

  app.use("*", async (_c, next) => {
    await s.ready()
    await next()
  })

  // ------------------------------------------------------------ middleware

  const withDeadline = (ms: number, signal: AbortSignal) => sleep(ms, AbortSignal.any([signal, s.lifetime]))

  /**
   * Injected faults for one operation (see lib/sandbox/faults.ts). Placed after the scope
   * check: a request the service would refuse for its token never draws from the fault
   * sequence, so a seeded run replays the same faults.
   */
  const fault =
    (operation: FaultOperation): MiddlewareHandler<Env> =>
    async (c, next) => {
      const settings = await s.settings.get()
      if (settings.rules.length === 0) return next()
      const decision = s.faults.decide(operation, settings)
      const signal = c.req.raw.signal
      if (decision.latencyMs > 0) await withDeadline(decision.latencyMs, signal)
      const outcome = decision.outcome
      if (!outcome) return next()
      switch (outcome.kind) {
        case "error":
          throw genericProblem(outcome.status, "injected fault")
        case "rate_limit":
          throw genericProblem(429, "rate limit exceeded (injected fault)", undefined, { "retry-after": "1" })
        case "hang":
          // Until the caller gives up (its signal aborts) or the cap passes.
          await withDeadline(HANG_CAP_MS, signal)
          throw genericProblem(504, "injected fault: the request hung")
        case "commit_then_fail":
          await next()
          // Only a create that stored a new record fails; a retry meeting the record gets its 409.
          if (c.get("stored") === true) {
            s.afterCommit.set(
              c.req.raw,
              outcome.status === "drop" ? { kind: "drop" } : { kind: "status", status: outcome.status },
            )
          }
          return
      }
    }

  const scope =
    (...required: string[]): MiddlewareHandler<Env> =>
    async (c, next) => {
      requireScope(c.get("principal"), required)
      await next()
    }

  const rateLimit = async (c: Context<Env>, key: string) => {
    const settings = await s.settings.get()
    if (!settings.rate_limits) return
    const taken = s.limiter.take(key, bucketFor(c.req.method, new URL(c.req.url).pathname), s.now().getTime())
    if (!taken.ok) {
      throw genericProblem(429, "rate limit exceeded", undefined, { "retry-after": String(taken.retryAfterS) })
    }
  }

  const authenticated =
    (options: { rateLimited: boolean }): MiddlewareHandler<Env> =>
    async (c, next) => {
      const principal = await s.oauth.authenticate(c.req.header("authorization"))
      c.set("principal", principal)
      if (options.rateLimited) await rateLimit(c, principal.clientId)
      await next()
    }

  const json = (c: Context<Env>, body: unknown) => c.json(body as object, 200, JSON_HEADERS)

  // ------------------------------------------------------------ OAuth

  // POST /sandbox/oauth2/token - client credentials grant (RFC 6749 §4.4)
  app.post(
    "/oauth2/token",
    async (c, next) => {
      const type = c.req.header("content-type") ?? ""
      if (!/^application\/x-www-form-urlencoded\b/i.test(type)) {
        throw new OAuthError("invalid_request", "the body must be application/x-www-form-urlencoded")
      }
      // Anyone may call this: the body is never held past 8 KiB.
      const text = await readBoundedText(c.req.raw, TOKEN_BODY_LIMIT)
      const form = new URLSearchParams(text)
      const authorization = c.req.header("authorization")
      // Credentials first, so that only requests that prove to be the client spend its
      // rate limit: a caller without the secret spends the bucket of failed requests that
      // name that client id, never the client's own.
      const checked: TokenClient = await s.oauth.authenticateClient(form, authorization).then(
        (client) => ({ client }),
        (error: unknown) => ({ error }),
      )
      const key = "client" in checked ? checked.client.clientId : `unverified\u0000${presentedClientId(form, authorization) ?? ""}`
      await rateLimit(c, key)
      c.set("stored", false)
      c.set("form", form)
      c.set("tokenClient", checked)
      await next()
    },
    fault("token"),
    async (c) => {
      const checked = c.get("tokenClient")
      if ("error" in checked) throw checked.error
      const grant = await s.oauth.issue(checked.client, c.get("form"))
      return c.json(grant, 200, { "cache-control": "no-store", pragma: "no-cache" })
    },
  )

  app.use("/v2/*", authenticated({ rateLimited: true }))
  // Never rate limited: the switch that turns limits and faults off must always answer.
  app.use("/admin/*", authenticated({ rateLimited: false }), scope(ADMIN_SCOPE))

  // ------------------------------------------------------------ quotes

  // GET /sandbox/v2/quotes - the current held quotes (BUY and SELL) of the asked markets
  app.get("/v2/quotes", scope("exchange:read_quote"), fault("quotes"), async (c) => {
    const asked = listParam(new URL(c.req.url), "markets")
    const unknown = asked.filter((m) => !isSandboxMarket(m))
    if (unknown.length > 0) {
      throw badRequest({ markets: `unknown market ${unknown.join(", ")}; markets are ${SANDBOX_MARKETS.join(", ")}` })
    }
    const markets = asked.length > 0 ? [...new Set(asked)] : [...SANDBOX_MARKETS]
    const rows = await s.quotes.current(markets)
    return json(c, { items: rows.map(wireQuote) })
  })

  // ------------------------------------------------------------ profiles and balances

  // GET /sandbox/v2/profiles - the account's profiles
  app.get("/v2/profiles", scope("funding:read_profile"), fault("list"), async (c) => {
    const url = new URL(c.req.url)
    const raw = queryFor(url, ["limit", "order", "page_cursor", "nickname", ...CREATED_AT_OPS.map((o) => `created_at.${o}`)])
    const query = parseOrThrow(profileListQuerySchema, raw) as ProfileListQuery
    const ids = listParam(url, "ids")
    if (ids.length > 0) query.ids = ids
    return json(c, await s.profiles.list(query))
  })

  // GET /sandbox/v2/profiles/{profile_id} - one profile ("default" names the default profile)
  app.get("/v2/profiles/:profileId", scope("funding:read_profile"), fault("get"), async (c) => {
    return json(c, wireProfile(await s.profiles.require(c.req.param("profileId"))))
  })

  // GET /sandbox/v2/profiles/{profile_id}/balances - balances, optionally only `assets`
  app.get("/v2/profiles/:profileId/balances", scope("funding:read_profile"), fault("list"), async (c) => {
    const profile = await s.profiles.require(c.req.param("profileId"))
    const assets = listParam(new URL(c.req.url), "assets")
    const malformed = assets.filter((a) => !/^[A-Z0-9]{2,12}$/.test(a))
    if (malformed.length > 0) throw badRequest({ assets: `not an asset: ${malformed.join(", ")}` })
    return json(c, { items: await listBalances(s.db, profile.id, assets) })
  })

  // GET /sandbox/v2/profiles/{profile_id}/balances/{asset} - one balance
  app.get("/v2/profiles/:profileId/balances/:asset", scope("funding:read_profile"), fault("get"), async (c) => {
    const profile = await s.profiles.require(c.req.param("profileId"))
    const asset = c.req.param("asset")
    if (!/^[A-Z0-9]{2,12}$/.test(asset)) throw badRequest({ asset: "not an asset" })
    const [balance] = await listBalances(s.db, profile.id, [asset])
    return json(c, balance)
  })

  // ------------------------------------------------------------ quote executions

  const executionContext = () => ({
    db: s.db,
    now: s.now,
    quotes: s.quotes,
    profiles: s.profiles,
    maxExecutionUsd: s.limits.maxExecutionUsd,
  })

  // POST /sandbox/v2/profiles/{profile_id}/quote-executions - execute a held quote
  app.post(
    "/v2/profiles/:profileId/quote-executions",
    scope("exchange:write_quote_execution"),
    fault("create_execution"),
    async (c) => {
      const input = parseOrThrow(quoteExecutionCreateSchema, await readJsonObject(c.req.raw))
      const principal = c.get("principal")
      const { record } = await createExecution(executionContext(), principal.clientId, c.req.param("profileId"), input)
      c.set("stored", true)
      s.worker.wakeAfter((await s.settings.get()).settle_delay_ms)
      return json(c, record)
    },
  )

  // GET /sandbox/v2/profiles/{profile_id}/quote-executions - list with filters and cursor paging
  app.get(
    "/v2/profiles/:profileId/quote-executions",
    scope("exchange:read_quote_execution"),
    fault("list"),
    async (c) => {
      const raw = queryFor(new URL(c.req.url), Object.keys(quoteExecutionListQuerySchema.shape))
      const query = parseOrThrow(quoteExecutionListQuerySchema, raw)
      return json(c, await listExecutions(executionContext(), c.req.param("profileId"), query))
    },
  )

  // GET /sandbox/v2/profiles/{profile_id}/quote-executions/{id} - one execution
  app.get(
    "/v2/profiles/:profileId/quote-executions/:id",
    scope("exchange:read_quote_execution"),
    fault("get"),
    async (c) => json(c, await getExecution(executionContext(), c.req.param("profileId"), c.req.param("id"))),
  )

  // ------------------------------------------------------------ stablecoin conversions

  const conversionContext = () => ({
    db: s.db,
    now: s.now,
    profiles: s.profiles,
    maxConversionUsd: s.limits.maxConversionUsd,
  })

  // POST /sandbox/v2/conversion/stablecoins - create a conversion
  app.post(
    "/v2/conversion/stablecoins",
    scope("conversion:write_conversion_stablecoin"),
    fault("create_conversion"),
    async (c) => {
      const input = parseOrThrow(conversionCreateSchema, await readJsonObject(c.req.raw))
      const { record } = await createConversion(conversionContext(), c.get("principal").clientId, input)
      c.set("stored", true)
      s.worker.wakeAfter((await s.settings.get()).settle_delay_ms)
      return json(c, record)
    },
  )

  // GET /sandbox/v2/conversion/stablecoins - list with filters and cursor paging
  app.get(
    "/v2/conversion/stablecoins",
    scope("conversion:read_conversion_stablecoin"),
    fault("list"),
    async (c) => {
      const raw = queryFor(new URL(c.req.url), Object.keys(conversionListQuerySchema.shape))
      const query = parseOrThrow(conversionListQuerySchema, raw)
      return json(c, await listConversions(conversionContext(), c.get("principal").clientId, query))
    },
  )

  // GET /sandbox/v2/conversion/stablecoins/{id} - one conversion
  app.get(
    "/v2/conversion/stablecoins/:id",
    scope("conversion:read_conversion_stablecoin"),
    fault("get"),
    async (c) => json(c, await getConversion(conversionContext(), c.get("principal").clientId, c.req.param("id"))),
  )

  // DELETE /sandbox/v2/conversion/stablecoins/{id} - cancel a CREATED conversion
  app.delete(
    "/v2/conversion/stablecoins/:id",
    scope("conversion:write_conversion_stablecoin"),
    fault("cancel"),
    async (c) => {
      const { record } = await cancelConversion(conversionContext(), c.get("principal").clientId, c.req.param("id"))
      return json(c, record)
    },
  )

  // ------------------------------------------------------------ sandbox funding

  // POST /sandbox/v2/sandbox/profiles/{profile_id}/deposit - fund a profile
  app.post("/v2/sandbox/profiles/:profileId/deposit", scope("funding:read_profile"), async (c) => {
    const input = parseOrThrow(sandboxDepositSchema, await readJsonObject(c.req.raw))
    const profile = await s.profiles.require(c.req.param("profileId"))
    const now = s.now()
    const activityId = randomUUID()
    await s.db.transaction(async (tx) => {
      await tx.insert(sandboxDeposits).values({
        id: activityId,
        clientId: c.get("principal").clientId,
        profileId: profile.id,
        asset: input.asset,
        amount: toDecimal(input.amount).toFixed(),
        cryptoNetwork: input.crypto_network ?? null,
        cryptoAddress: input.crypto_address ?? null,
        createdAt: now,
      })
      await creditFunds(tx, profile.id, input.asset, toDecimal(input.amount), now)
    })
    return json(c, { activity_id: activityId })
  })

  // ------------------------------------------------------------ admin

  // GET /sandbox/admin/faults - fault rules, seed, settle delay, rate limits
  app.get("/admin/faults", async (c) => json(c, publicSettings(await s.settings.get())))

  // PUT /sandbox/admin/faults - change them (fields left out stay; {"rules": []} clears the rules)
  app.put("/admin/faults", async (c) => {
    const patch = parseOrThrow(faultSettingsUpdateSchema, await readJsonObject(c.req.raw), { paths: "full" })
    const updated = await s.settings.update(patch, s.now())
    if (patch.rate_limits !== undefined) s.limiter.reset()
    return json(c, publicSettings(updated))
  })

  // GET /sandbox/admin/config - the fixed configuration, for the admin page
  app.get("/admin/config", (c) =>
    json(c, {
      token_ttl_s: s.limits.tokenTtlS,
      max_execution_usd: String(s.limits.maxExecutionUsd),
      max_conversion_usd: String(s.limits.maxConversionUsd),
      usd_reference_rates: USD_REFERENCE_RATES,
      reject_threshold_percent: toDecimal(REJECT_THRESHOLD).mul(100).toString(),
      markets: SANDBOX_MARKETS,
      assets: SANDBOX_ASSETS,
    }),
  )

  // POST /sandbox/admin/market-moves - jolt an asset's price (quotes held before it may be Rejected)
  app.post("/admin/market-moves", async (c) => {
    const move = parseOrThrow(marketMoveSchema, await readJsonObject(c.req.raw))
    return json(c, await s.quotes.move(move.asset, toDecimal(move.change_percent)))
  })

  return app
}

/** The conversion list's filters with any ref_id the service takes (the console's API is stricter). */

const CREATED_AT_OPS = ["lt", "lte", "eq", "gte", "gt"] as const

const dateTime = z.iso.datetime({ offset: true, error: "must be an RFC 3339 date-time" }).optional()
const profileListQuerySchema = z.strictObject({
  limit: z.coerce.number().int("must be a whole number").min(1, "at least 1").max(1000, "at most 1000").optional(),
  order: z.enum(["ASC", "DESC"]).optional(),
  page_cursor: z.string().max(512).optional(),
  nickname: z.string().max(100).optional(),
  "created_at.lt": dateTime,
  "created_at.lte": dateTime,
  "created_at.eq": dateTime,
  "created_at.gte": dateTime,
  "created_at.gt": dateTime,
})
