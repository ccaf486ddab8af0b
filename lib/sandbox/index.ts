import "server-only"
import type { Db } from "@/lib/db/client"
import { type SandboxSettings, env } from "@/lib/env"
import { log } from "@/lib/log"
import { type AfterCommit, createSandboxApp } from "@/lib/sandbox/app"
import { Conversions } from "@/lib/sandbox/conversions"
import { Deposits } from "@/lib/sandbox/deposits"
import { QuoteExecutions } from "@/lib/sandbox/executions"
import { ensureClient } from "@/lib/sandbox/credentials"
import { FaultInjector, abortReason, droppedConnection } from "@/lib/sandbox/faults"
import { OAuthService } from "@/lib/sandbox/oauth"
import { Orchestrations } from "@/lib/sandbox/orchestrations"
import { problemResponse } from "@/lib/problem"
import { genericProblem } from "@/lib/sandbox/problems"
import { ProfileDirectory, seedProfiles } from "@/lib/sandbox/profiles"
import { QuoteBook } from "@/lib/sandbox/quotes"
import { RateLimiter } from "@/lib/sandbox/rate-limit"
import { SettingsStore } from "@/lib/sandbox/settings"
import { SettlementWorker } from "@/lib/sandbox/settlement"
import { EventLog } from "@/lib/sandbox/events"
import { Transfers } from "@/lib/sandbox/transfers"
import { type WebhookSend, WebhookWorker } from "@/lib/sandbox/webhooks"

export interface SandboxConfig extends SandboxSettings {
  /** Seed of the price walk and of fault decisions (default 1); PUT /sandbox/admin/faults can change it. */
  seed?: number
}

export interface SandboxOptions {
  db: Db
  config: SandboxConfig
  now?: () => Date
  clientId?: string
  clientSecret?: string
  credentialsFile?: string
  /** How webhooks are POSTed (global fetch by default; tests pass a receiver). */
  webhookSend?: WebhookSend
}

export interface Sandbox {
  /** The Hono app's web-standard entry. */
  fetch(request: Request): Promise<Response>
  /** The env pair, or one generated once (hash in the DB, plaintext in credentialsFile, mode 0600). */
  ensureClient(): Promise<{ clientId: string; clientSecret: string }>
  /** Starts the settlement worker (it resumes settlements pending from before a restart). */
  startWorkers(): void
  /** One settlement pass, for tests: returns how many records it settled. */
  settleDue(): Promise<number>
  /** One webhook delivery pass, for tests: returns how many deliveries succeeded. */
  deliverWebhooks(): Promise<number>
  stop(): Promise<void>
}

export { isDroppedConnection } from "@/lib/sandbox/faults"

/**
 * The embedded sandbox: a faithful, stateful implementation of the service interface
 * (OAuth, quotes, profiles, balances, quote executions, stablecoin conversions,
 * orchestrations, sandbox deposits, transfers, events and webhooks) plus fault injection, on the given database (tables `sandbox_*`, which the
 * caller has migrated). Paths: /sandbox/oauth2/token, /sandbox/v2/…, /sandbox/admin/….
 */
export function createSandbox(options: SandboxOptions): Sandbox {
  const { db, config } = options
  const now = options.now ?? (() => new Date())
  const lifetime = new AbortController()
  // Messages only, never request bodies or headers; lib/log redacts anything secret-looking anyway.
  const logError = (event: string, fields: Record<string, unknown>) => log.error(event, fields)

  const settings = new SettingsStore(db, {
    seed: config.seed ?? 1,
    settleDelayMs: config.settleDelayMs,
    quoteTtlMs: config.quoteTtlMs,
    rateLimits: config.rateLimits,
  })
  const profiles = new ProfileDirectory(db)
  const quotes = new QuoteBook(db, now, async () => {
    const current = await settings.get()
    return { seed: current.seed, quoteTtlMs: current.quote_ttl_ms }
  })
  const executions = new QuoteExecutions({ db, now, quotes, profiles, maxExecutionUsd: config.maxExecutionUsd })
  const conversions = new Conversions({ db, now, profiles, maxConversionUsd: config.maxConversionUsd })
  const orchestrations = new Orchestrations({ db, now, profiles, maxConversionUsd: config.maxConversionUsd }, settings)
  const deposits = new Deposits({ db, now, profiles, settings })
  const worker = new SettlementWorker(db, now, settings, { executions, conversions, orchestrations, deposits }, (error) =>
    logError("sandbox.settlement_failed", { error: describeError(error) }),
  )
  const faults = new FaultInjector()
  const webhooks = new WebhookWorker(db, now, settings, faults, options.webhookSend ?? ((url, init) => fetch(url, init)), lifetime.signal, (error) =>
    logError("sandbox.webhook_failed", { error: describeError(error) }),
  )

  let readyPromise: Promise<void> | undefined
  const ready = () => {
    readyPromise ??= (async () => {
      await settings.init(now())
      await seedProfiles(db, now())
    })()
    readyPromise.catch(() => {
      readyPromise = undefined
    })
    return readyPromise
  }

  const afterCommit = new WeakMap<Request, AfterCommit>()
  const app = createSandboxApp({
    db,
    now,
    ready,
    oauth: new OAuthService(db, now, config.tokenTtlS),
    quotes,
    profiles,
    executions,
    conversions,
    orchestrations,
    deposits,
    events: new EventLog(db),
    transfers: new Transfers(db),
    settings,
    faults,
    limiter: new RateLimiter(),
    worker,
    lifetime: lifetime.signal,
    afterCommit,
    limits: {
      tokenTtlS: config.tokenTtlS,
      maxExecutionUsd: config.maxExecutionUsd,
      maxConversionUsd: config.maxConversionUsd,
    },
    log: logError,
  })

  let client: Promise<{ clientId: string; clientSecret: string }> | undefined

  return {
    async fetch(request: Request): Promise<Response> {
      const signal = request.signal
      if (signal.aborted) throw abortReason(signal)
      // Like fetch: when the caller aborts, the promise rejects with the signal's reason.
      const response = await new Promise<Response>((resolve, reject) => {
        const onAbort = () => reject(abortReason(signal))
        signal.addEventListener("abort", onAbort, { once: true })
        Promise.resolve(app.fetch(request))
          .then(resolve, reject)
          .finally(() => signal.removeEventListener("abort", onAbort))
      })
      const fail = afterCommit.get(request)
      if (!fail) return response
      // "Commit then fail": the record is stored; the caller sees a failure instead.
      await response.body?.cancel()
      if (fail.kind === "drop") return droppedConnection()
      return problemResponse(genericProblem(fail.status, "injected fault"))
    },

    async ensureClient() {
      await ready()
      client ??= ensureClient(db, now, {
        clientId: options.clientId,
        clientSecret: options.clientSecret,
        credentialsFile: options.credentialsFile,
      })
      client.catch(() => {
        client = undefined
      })
      return client
    },

    startWorkers() {
      void ready().then(
        () => {
          if (lifetime.signal.aborted) return
          worker.start()
          webhooks.start()
        },
        (error: unknown) => logError("sandbox.start_failed", { error: describeError(error) }),
      )
    },

    async settleDue() {
      await ready()
      return worker.settleDue()
    },

    async deliverWebhooks() {
      await ready()
      return webhooks.deliverDue()
    },

    async stop() {
      lifetime.abort(new DOMException("the sandbox stopped", "AbortError"))
      await worker.stop()
      await webhooks.stop()
    },
  }
}

function describeError(error: unknown): string {
  return (error instanceof Error ? error.message : "unknown error").slice(0, 300)
}

/** The sandbox's configuration from the environment (lib/env). */
export function sandboxConfigFromEnv(): SandboxConfig {
  const { clientId: _clientId, clientSecret: _clientSecret, port: _port, ...settings } = env().sandbox
  return settings
}
