import "server-only"
import path from "node:path"
import { ensureStaffBootstrap } from "@/lib/auth/staff-bootstrap"
import { listApprovals, listApprovalsPage } from "@/lib/console/approvals/reads"
import { database } from "@/lib/console/database"
import type { ConsoleDeps } from "@/lib/console/operations"
import { currentConversionsApi } from "@/lib/console/conversions-api"
import { consoleEventHandler } from "@/lib/console/event-effects"
import { type EventReader, createEventReader } from "@/lib/console/event-reader"
import { type OrchestrationFollower, createOrchestrationFollower } from "@/lib/console/followed-orchestrations"
import { type InstanceRegistry, createInstanceRegistry, createSoloInstance } from "@/lib/console/instances"
import { type MarketDataCache, createMarketData } from "@/lib/console/market-data"
import { registerConsoleMetrics } from "@/lib/console/metrics-sources"
import { pollNotifications } from "@/lib/console/notifications"
import { readInbox } from "@/lib/console/notify/inbox"
import { type OverviewSource, buildOverview, createOverviewSource } from "@/lib/console/overview"
import { createQuoteCache } from "@/lib/console/quote-cache"
import { type QuoteSource, createQuoteFeed, createSoloQuoteFeed } from "@/lib/console/quote-feed"
import { type StreamHub, createStreamHub } from "@/lib/console/stream-hub"
import { type SnapshotJob, createSnapshotJob } from "@/lib/console/statements/snapshots"
import { type SharedLimiter, createSharedLimiter, createSoloLimiter } from "@/lib/console/shared-limiter"
import { type NotificationWorker, createNotificationWorker } from "@/lib/console/notify/worker"
import { tieOutCutoff } from "@/lib/console/notify/statements"
import { EVENTS_LAG_CHECK_MS, checkEventsLag } from "@/lib/console/notify/events-lag"
import { reconcileIntents } from "@/lib/console/reconciler"
import { ConfigError, configurationWarnings, env } from "@/lib/env"
import { errorKind, log } from "@/lib/log"
import { recordReconcilerRun, recordUpstreamEvent } from "@/lib/metrics"
import { approvalListQuerySchema } from "@/lib/schemas/approvals"
import { SEED_MARKETS } from "@/lib/schemas/assets"
import { faultsStatusOf } from "@/lib/schemas/sandbox-tools"
import type { ConversionsApi } from "@/lib/schemas/constants"
import type { ReconcileReport } from "@/lib/schemas/audit"
import { type Sandbox, createSandbox, sandboxConfigFromEnv } from "@/lib/sandbox"
import { type UpstreamClient, type UpstreamFetch, createUpstreamClient } from "@/lib/upstream"

/** Where the in-process sandbox answers; the host is never resolved, requests stay in memory. */
export const SANDBOX_INTERNAL_ORIGIN = "http://sandbox.internal"

export interface ConsoleRuntime extends ConsoleDeps {
  upstream: UpstreamClient
  /** Quotes from the one poller of every instance on the database (on PGlite, this instance's own cache). */
  quotes: QuoteSource
  /** Shared market data (history, prices): at most one service call per key per 10 s. */
  marketData: MarketDataCache
  /** The overview's shared reads of profiles, balances and the latest records. */
  overview: OverviewSource
  /** The service's rate limits, shared by every instance through the database (on PGlite, this instance's alone). */
  limiter: SharedLimiter
  /** This instance among the others on the database. */
  instance: InstanceRegistry
  /** The embedded sandbox, in sandbox mode only. */
  sandbox: Sandbox | null
  /** The one reader of the service's events (lease in the database; alone on PGlite); null when EVENTS_POLL_MS is 0. */
  events: EventReader | null
  /** The one taker of each UTC cutoff's balance snapshot (lease in the database; alone on PGlite). */
  snapshots: SnapshotJob
  /** Orchestration records as last fetched, asked again only when an event says they changed (while the reader covers them). */
  followed: OrchestrationFollower
  /** The one deliverer of notifications (email, chat, webhooks) of every instance (lease in the database; alone on PGlite). */
  notifier: NotificationWorker
  /** What every open GET /api/stream of this instance is pushed: one quotes reader, one record-event listener. */
  stream: StreamHub
}

const globalForRuntime = globalThis as unknown as {
  __consoleRuntime?: Promise<ConsoleRuntime>
  __consoleBackground?: boolean
}

async function build(): Promise<ConsoleRuntime> {
  const config = env()
  const opened = await database()
  const { db } = opened
  let sandbox: Sandbox | null = null
  let upstreamTarget: { baseUrl: string; tokenUrl: string; clientId: string; clientSecret: string; fetch?: UpstreamFetch }
  if (config.upstream.kind === "sandbox") {
    sandbox = createSandbox({
      db,
      config: sandboxConfigFromEnv(),
      clientId: config.sandbox.clientId,
      clientSecret: config.sandbox.clientSecret,
      credentialsFile: path.resolve(config.dataDir, "sandbox-client.json"),
    })
    const credentials = await sandbox.ensureClient()
    const inProcess = sandbox
    upstreamTarget = {
      baseUrl: `${SANDBOX_INTERNAL_ORIGIN}/sandbox/v2`,
      tokenUrl: `${SANDBOX_INTERNAL_ORIGIN}/sandbox/oauth2/token`,
      ...credentials,
      // Same HTTP semantics as the network (Request in, Response out), minus the socket.
      fetch: (request) => inProcess.fetch(request),
    }
  } else {
    upstreamTarget = { ...config.upstream }
  }
  // PGlite: one process opens a data folder at a time, so this instance is the only one on
  // its database. The shared budget, the quotes lease and the instance count are for several
  // instances on one PostgreSQL; alone, they would cost a database round trip before every
  // service call and a dozen writes a second, for nothing.
  const solo = !config.databaseUrl
  const instance = solo ? createSoloInstance() : createInstanceRegistry(db)
  const limiter = solo ? createSoloLimiter() : createSharedLimiter({ db, instances: instance.live })
  const upstream = createUpstreamClient({
    ...upstreamTarget,
    scopes: config.upstreamScopes,
    timeoutMs: config.upstreamTimeoutMs,
    limiter,
    log: (event) => {
      recordUpstreamEvent(event)
      log.debug("upstream.call", { ...event })
    },
    conversionsApi: () => currentConversionsApi(db),
  })
  const cache = createQuoteCache({ fetchQuotes: (markets) => upstream.listQuotes(markets), baseMarkets: SEED_MARKETS })
  const quotes = solo ? createSoloQuoteFeed(cache, Date.now, db) : createQuoteFeed({ db, id: instance.id, cache })
  const marketData = createMarketData({ upstream })
  const overview = createOverviewSource({ upstream })
  const events =
    config.eventsPollMs > 0
      ? createEventReader({
          db,
          id: instance.id,
          upstream,
          solo,
          pollMs: config.eventsPollMs,
          staleMs: config.eventsStaleMs,
          handler: consoleEventHandler({ refreshBalances: () => overview.refresh() }),
        })
      : null
  const snapshots = createSnapshotJob({ db, id: instance.id, upstream, solo, tieOut: (snapshot, at) => tieOutCutoff({ db, upstream }, snapshot, at) })
  const followed = createOrchestrationFollower({ db })
  const notifier = createNotificationWorker({
    db,
    id: instance.id,
    solo,
    pollMs: config.notifyPollMs,
    publicUrl: consolePublicUrl,
    smtp: () => env().smtp,
  })
  const stream = createStreamHub({
    db,
    quotes,
    listen: (channel, onNotify, onLost) => opened.listen(channel, onNotify, onLost),
    sandboxStatus: sandbox ? async () => faultsStatusOf(await upstream.getFaults()) : null,
    topics: {
      inbox: (email) => readInbox(db, email),
      approvals: (staff) => listApprovals(db, approvalListQuerySchema.parse({ state: "PENDING", limit: 1 }), new Date(), staff),
      approvalList: (staff) => listApprovalsPage(db, staff),
      overview: (staff) => buildOverview({ db, staff, source: overview, quotes, marketData }),
      overviewChanged: () => overview.refresh(),
      notifications: (staff, since) => pollNotifications({ db, upstream }, staff, since, { eventsCoverOrchestrations: events?.covering() ?? false }),
    },
  })
  const runtime: ConsoleRuntime = { db, upstream, quotes, marketData, overview, limiter, instance, sandbox, events, snapshots, followed, notifier, stream }
  registerConsoleMetrics(runtime)
  return runtime
}

/** The console's public URL, for deep links in notifications: NEXTAUTH_URL, or in sandbox mode this server on localhost. */
export function consolePublicUrl(): string {
  return env().nextAuthUrl ?? `http://localhost:${process.env.PORT ?? "3000"}`
}

/** For the banner: the API in use, or the configured one when the database cannot say. Never throws. */
export async function bannerConversionsApi(): Promise<ConversionsApi> {
  try {
    return await currentConversionsApi((await consoleRuntime()).db)
  } catch (error) {
    log.warn("console.conversions_api_unknown", { error: errorKind(error) })
    return env().conversionsApi
  }
}

/** The runtime if this process has started building it (a shutdown has nothing to stop otherwise). */
export function builtRuntime(): Promise<ConsoleRuntime> | undefined {
  return globalForRuntime.__consoleRuntime
}

/** The process's console runtime: database, service client, quote cache, sandbox. */
export function consoleRuntime(): Promise<ConsoleRuntime> {
  globalForRuntime.__consoleRuntime ??= build()
  globalForRuntime.__consoleRuntime.catch(() => {
    globalForRuntime.__consoleRuntime = undefined
  })
  return globalForRuntime.__consoleRuntime
}

let reconciling: Promise<ReconcileReport> | null = null

/** Runs the reconciler; a call while a run is under way in this process joins that run. */
export function reconcileNow(options: { olderThanMs?: number } = {}): Promise<ReconcileReport> {
  reconciling ??= (async () => reconcileIntents(await consoleRuntime(), options))()
    .then((report) => {
      recordReconcilerRun(report)
      return report
    })
    .catch((error: unknown) => {
      recordReconcilerRun(null)
      throw error
    })
    .finally(() => {
    reconciling = null
  })
  return reconciling
}

/**
 * Start-up work, once per server process (from instrumentation.ts): open and migrate
 * the database, start the sandbox's settlement worker, and reconcile intents now and
 * every minute. A database that is not reachable yet does not stop the server (health
 * says degraded meanwhile): start-up is tried again every 10 s until it succeeds.
 */
export async function startBackgroundWork(): Promise<void> {
  if (globalForRuntime.__consoleBackground) return
  globalForRuntime.__consoleBackground = true
  try {
    for (const { variable, warning } of configurationWarnings(env())) log.warn("config.warning", { variable, warning })
    await begin()
  } catch (error) {
    if (error instanceof ConfigError) {
      globalForRuntime.__consoleBackground = false
      throw error
    }
    log.error("console.start_failed", { error: String(error), retryInMs: START_RETRY_MS })
    const again = () => {
      begin().catch((retryError: unknown) => {
        log.warn("console.start_failed", { error: String(retryError), retryInMs: START_RETRY_MS })
        setTimeout(again, START_RETRY_MS).unref()
      })
    }
    setTimeout(again, START_RETRY_MS).unref()
  }
}

const START_RETRY_MS = 10_000

async function begin(): Promise<void> {
  const runtime = await consoleRuntime()
  // CONSOLE_USERS (and the demo users) into the staff table, for those never created before.
  await ensureStaffBootstrap(runtime.db)
  runtime.sandbox?.startWorkers()
  runtime.instance.start()
  runtime.events?.start()
  runtime.snapshots.start()
  runtime.notifier.start()
  if (runtime.events) {
    const watch = () => {
      checkEventsLag(runtime.db).catch((error: unknown) => log.warn("events.lag_check_failed", { error: errorKind(error) }))
    }
    setInterval(watch, EVENTS_LAG_CHECK_MS).unref()
  }
  if (runtime.sandbox && runtime.events) pointSandboxWebhookHere(runtime)
  const tick = () => {
    reconcileNow().catch((error: unknown) => log.warn("reconciler.failed", { error: String(error) }))
  }
  tick()
  setInterval(tick, 60_000).unref()
  log.info("console.started", { mode: env().mode })
}

/**
 * Sandbox mode with a webhook key: the embedded sandbox's webhook goes to this console's
 * receiver unless it was set to something else (the /sandbox page, or its admin API).
 */
function pointSandboxWebhookHere(runtime: ConsoleRuntime, triesLeft = 20): void {
  const hook = env().webhook
  if (!hook) return
  // Next sets PORT once it listens, which may be after start-up work began.
  if (!env().nextAuthUrl && !process.env.PORT && triesLeft > 0) {
    setTimeout(() => pointSandboxWebhookHere(runtime, triesLeft - 1), 500).unref()
    return
  }
  void setSandboxWebhook(runtime, hook)
}

async function setSandboxWebhook(runtime: ConsoleRuntime, hook: { apiKey: string; header: string }): Promise<void> {
  try {
    const settings = await runtime.upstream.getFaults()
    if (settings.webhook_url !== null) return
    const origin = env().nextAuthUrl ?? `http://127.0.0.1:${process.env.PORT ?? "3000"}`
    const url = new URL("/api/webhooks/service", origin).toString()
    await runtime.upstream.putFaults({ webhook_url: url, webhook_api_key_header: hook.header, webhook_api_key: hook.apiKey })
    log.info("events.sandbox_webhook_set", { url })
  } catch (error) {
    log.warn("events.sandbox_webhook_failed", { error: errorKind(error) })
  }
}
