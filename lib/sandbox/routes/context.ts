import "server-only"
import { Hono } from "hono"
import type { Context, MiddlewareHandler } from "hono"
import type { Db } from "@/lib/db/client"
import { genericProblem } from "@/lib/sandbox/problems"
import type { FaultOperation } from "@/lib/schemas/sandbox-tools"
import type { Orchestrations } from "@/lib/sandbox/orchestrations"
import type { Conversions } from "@/lib/sandbox/conversions"
import type { Deposits } from "@/lib/sandbox/deposits"
import type { EventLog } from "@/lib/sandbox/events"
import type { Transfers } from "@/lib/sandbox/transfers"
import type { QuoteExecutions } from "@/lib/sandbox/executions"
import { type FaultInjector, HANG_CAP_MS, sleep } from "@/lib/sandbox/faults"
import { type OAuthService, type Principal, type SandboxClient, requireScope } from "@/lib/sandbox/oauth"
import type { ProfileDirectory } from "@/lib/sandbox/profiles"
import type { QuoteBook } from "@/lib/sandbox/quotes"
import { type RateLimiter, bucketFor } from "@/lib/sandbox/rate-limit"
import type { SettingsStore } from "@/lib/sandbox/settings"
import type { SettlementWorker } from "@/lib/sandbox/settlement"

/** What a request's response becomes after a "commit then fail" fault fired. */
export type AfterCommit = { kind: "status"; status: number } | { kind: "drop" }

export interface SandboxServices {
  db: Db
  now: () => Date
  ready: () => Promise<void>
  oauth: OAuthService
  quotes: QuoteBook
  profiles: ProfileDirectory
  executions: QuoteExecutions
  conversions: Conversions
  orchestrations: Orchestrations
  deposits: Deposits
  events: EventLog
  transfers: Transfers
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
export type TokenClient = { client: SandboxClient } | { error: unknown }

export type SandboxEnv = {
  Variables: {
    principal: Principal
    stored: boolean
    form: URLSearchParams
    tokenClient: TokenClient
    /** Set when a fault rule decided that the record this request creates ends FAILED. */
    failProcessing: boolean
  }
}

/** A router of one resource. */
export const router = () => new Hono<SandboxEnv>()

/** A JSON answer, never cached. */
export const json = (c: Context<SandboxEnv>, body: unknown) => c.json(body as object, 200, { "cache-control": "no-store" })

/** The middleware every resource's routes share, bound to the sandbox's services. */
export function middleware(s: SandboxServices) {
  const withDeadline = (ms: number, signal: AbortSignal) => sleep(ms, AbortSignal.any([signal, s.lifetime]))

  /** The service's rate limits, when the settings turn them on; `key` is whose bucket pays. */
  const rateLimit = async (c: Context<SandboxEnv>, key: string) => {
    const settings = await s.settings.get()
    if (!settings.rate_limits) return
    const taken = s.limiter.take(key, bucketFor(c.req.method, new URL(c.req.url).pathname), s.now().getTime())
    if (!taken.ok) {
      throw genericProblem(429, "rate limit exceeded", undefined, { "retry-after": String(taken.retryAfterS) })
    }
  }

  /**
   * Injected faults for one operation (see lib/sandbox/faults.ts). Placed after the scope
   * check: a request the service would refuse for its token never draws from the fault
   * sequence, so a seeded run replays the same faults.
   */
  const fault =
    (operation: FaultOperation): MiddlewareHandler<SandboxEnv> =>
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
            s.afterCommit.set(c.req.raw, outcome.status === "drop" ? { kind: "drop" } : { kind: "status", status: outcome.status })
          }
          return
        case "fail_processing":
          c.set("failProcessing", true)
          return next()
        case "drop":
          // Only webhook deliveries take it (lib/sandbox/webhooks.ts); a request is never dropped by it.
          return next()
      }
    }

  const scope =
    (...required: string[]): MiddlewareHandler<SandboxEnv> =>
    async (c, next) => {
      requireScope(c.get("principal"), required)
      await next()
    }

  const authenticated =
    (options: { rateLimited: boolean }): MiddlewareHandler<SandboxEnv> =>
    async (c, next) => {
      const principal = await s.oauth.authenticate(c.req.header("authorization"))
      c.set("principal", principal)
      if (options.rateLimited) await rateLimit(c, principal.clientId)
      await next()
    }

  /**
   * A public route (market data): no token checked. Rate limited per process under one
   * shared key (the service limits by IP; the sandbox does not see one in process).
   */
  const anonymous: MiddlewareHandler<SandboxEnv> = async (c, next) => {
    await rateLimit(c, "anonymous")
    await next()
  }

  /** After a create stored its record: remember it (for commit-then-fail) and wake the settlement worker. */
  const stored = async (c: Context<SandboxEnv>) => {
    c.set("stored", true)
    s.worker.wakeAfter((await s.settings.get()).settle_delay_ms)
  }

  return { rateLimit, fault, scope, authenticated, anonymous, stored }
}

export type Middleware = ReturnType<typeof middleware>
