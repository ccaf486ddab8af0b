import "server-only"
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client"
import type { UpstreamLogEvent } from "@/lib/upstream"

/**
 * The process's one metrics registry, read at GET /api/metrics in Prometheus' text format.
 * Counters and histograms are fed where things happen; gauges whose truth lives in the
 * database (intents, sessions) ask it when scraped, through sources registered below.
 */

const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
const WAIT_BUCKETS = [0, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5]

/** A value read when scraped; undefined leaves the gauge unset (the source is not wired). */
type Source<T> = () => Promise<T> | T

interface Sources {
  intents?: Source<{ byState: Record<string, number>; oldestUnresolvedAt: Date | null }>
  quoteAge?: Source<{ ageSeconds: number | null; poller: boolean }>
  activeSessions?: Source<number>
  signInFailures?: Source<number>
  limiterShared?: Source<boolean>
  eventReader?: Source<{ lagSeconds: number | null; reader: boolean; behind: boolean; parked: number; retrying: number } | null>
}

function build() {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry, prefix: "console_" })
  const sources: Sources = {}

  const httpRequests = new Histogram({
    name: "console_http_request_duration_seconds",
    help: "Console API requests by route (the route file's pattern), method and status, with their duration.",
    labelNames: ["route", "method", "status"] as const,
    buckets: DURATION_BUCKETS,
    registers: [registry],
  })
  const upstreamRequests = new Histogram({
    name: "console_upstream_request_duration_seconds",
    help: "HTTP requests to the service by operation and status (a status code, timeout or network), with their duration.",
    labelNames: ["operation", "status"] as const,
    buckets: DURATION_BUCKETS,
    registers: [registry],
  })
  const upstreamRetries = new Counter({
    name: "console_upstream_retries_total",
    help: "Retries of service calls by operation (same ref_id for creates).",
    labelNames: ["operation"] as const,
    registers: [registry],
  })
  const upstreamRateLimited = new Counter({
    name: "console_upstream_rate_limited_total",
    help: "429 Too Many Requests answers from the service, by operation.",
    labelNames: ["operation"] as const,
    registers: [registry],
  })
  const limiterWaits = new Histogram({
    name: "console_limiter_wait_seconds",
    help: "How long a service call waited for its rate-limit slot, by bucket (token, quote_executions, other) and limiter (shared, local, solo).",
    labelNames: ["bucket", "limiter"] as const,
    buckets: WAIT_BUCKETS,
    registers: [registry],
  })
  const limiterRefused = new Counter({
    name: "console_limiter_refused_total",
    help: "Service calls the limiter refused (the wait would have exceeded its maximum), by bucket.",
    labelNames: ["bucket"] as const,
    registers: [registry],
  })
  new Gauge({
    name: "console_limiter_shared",
    help: "1 when the rate limits are counted for every instance (shared through the database, or on PGlite by the only instance), 0 when this instance fell back to its local share.",
    registers: [registry],
    async collect() {
      if (sources.limiterShared) this.set((await sources.limiterShared()) ? 1 : 0)
    },
  })
  new Gauge({
    name: "console_intents",
    help: "Intents (creates and cancels sent to the service) by state.",
    labelNames: ["state"] as const,
    registers: [registry],
    async collect() {
      if (!sources.intents) return
      const { byState } = await sources.intents()
      this.reset()
      for (const state of ["PENDING", "SUCCEEDED", "FAILED", "UNKNOWN"]) this.set({ state }, byState[state] ?? 0)
    },
  })
  new Gauge({
    name: "console_intent_oldest_unresolved_age_seconds",
    help: "Age of the oldest PENDING or UNKNOWN intent; 0 when every intent is resolved.",
    registers: [registry],
    async collect() {
      if (!sources.intents) return
      const { oldestUnresolvedAt } = await sources.intents()
      this.set(oldestUnresolvedAt ? Math.max(0, (Date.now() - oldestUnresolvedAt.getTime()) / 1000) : 0)
    },
  })
  const reconcilerRuns = new Counter({
    name: "console_reconciler_runs_total",
    help: "Reconciler runs by result (ok, failed).",
    labelNames: ["result"] as const,
    registers: [registry],
  })
  const reconciledIntents = new Counter({
    name: "console_reconciler_intents_total",
    help: "Intents the reconciler examined, by what it learned (succeeded, failed, unresolved).",
    labelNames: ["outcome"] as const,
    registers: [registry],
  })
  new Gauge({
    name: "console_quote_age_seconds",
    help: "Age of the newest quotes this instance can serve (fetched by the one poller of all instances).",
    registers: [registry],
    async collect() {
      const age = (await sources.quoteAge?.())?.ageSeconds
      if (age !== null && age !== undefined) this.set(age)
    },
  })
  new Gauge({
    name: "console_quote_poller",
    help: "1 when this instance is the one polling the service for quotes.",
    registers: [registry],
    async collect() {
      const state = await sources.quoteAge?.()
      if (state) this.set(state.poller ? 1 : 0)
    },
  })
  const webhookHints = new Counter({
    name: "console_webhook_hints_total",
    help: "Webhook hints received at POST /api/webhooks/service, by result (accepted, invalid, unauthorized, too_large, off).",
    labelNames: ["result"] as const,
    registers: [registry],
  })
  new Gauge({
    name: "console_event_reader_lag_seconds",
    help: "Seconds since the newest service event the console read was created (now minus its created_at).",
    registers: [registry],
    async collect() {
      const lag = (await sources.eventReader?.())?.lagSeconds
      if (lag !== null && lag !== undefined) this.set(lag)
    },
  })
  new Gauge({
    name: "console_event_reader",
    help: "1 when this instance is the one reading the service's events.",
    registers: [registry],
    async collect() {
      const state = await sources.eventReader?.()
      if (state) this.set(state.reader ? 1 : 0)
    },
  })
  new Gauge({
    name: "console_event_reader_behind",
    help: "1 when no instance has read the service's events successfully for EVENTS_STALE_MS (nobody holds the lease, or the reads fail).",
    registers: [registry],
    async collect() {
      const state = await sources.eventReader?.()
      if (state) this.set(state.behind ? 1 : 0)
    },
  })
  new Gauge({
    name: "console_events_unprocessed",
    help: "Service events whose processing failed, by state (retrying, parked): shared by every instance.",
    labelNames: ["state"] as const,
    registers: [registry],
    async collect() {
      const state = await sources.eventReader?.()
      if (!state) return
      this.set({ state: "retrying" }, state.retrying)
      this.set({ state: "parked" }, state.parked)
    },
  })
  const signInFailuresSeen = new Counter({
    name: "console_sign_in_failures_total",
    help: "Refused sign-ins (wrong email or password, or throttled).",
    registers: [registry],
    async collect() {
      if (!sources.signInFailures) return
      // A shared count (all instances) replaces this process's own, when one is wired.
      this.reset()
      this.inc(await sources.signInFailures())
    },
  })

  return {
    registry,
    sources,
    httpRequests,
    upstreamRequests,
    upstreamRetries,
    upstreamRateLimited,
    limiterWaits,
    limiterRefused,
    reconcilerRuns,
    reconciledIntents,
    signInFailuresSeen,
    webhookHints,
  }
}

export type Metrics = ReturnType<typeof build>

const globalForMetrics = globalThis as unknown as { __consoleMetrics?: Metrics }

/** The process's metrics (kept on globalThis: the dev server reloads modules, a registry must not double). */
export function metrics(): Metrics {
  globalForMetrics.__consoleMetrics ??= build()
  return globalForMetrics.__consoleMetrics
}

/** Wires a gauge whose value lives elsewhere (the database, the quote feed, the limiter). */
export function registerMetricSource<K extends keyof Sources>(name: K, source: NonNullable<Sources[K]>): void {
  metrics().sources[name] = source
}

/**
 * For the sessions and sign-in code: how many sessions are active, and how many sign-ins
 * were refused (a count shared by every instance, e.g. from a throttling table).
 */
export function registerSessionMetrics(source: { activeSessions?: Source<number>; signInFailures?: Source<number> }): void {
  const m = metrics()
  if (source.activeSessions) {
    m.sources.activeSessions = source.activeSessions
    // Registered with its source: a gauge that read 0 before anything counts sessions would mislead.
    if (!m.registry.getSingleMetric("console_active_sessions")) {
      new Gauge({
        name: "console_active_sessions",
        help: "Signed-in staff sessions that are still valid (every instance).",
        registers: [m.registry],
        async collect() {
          if (m.sources.activeSessions) this.set(await m.sources.activeSessions())
        },
      })
    }
  }
  if (source.signInFailures) registerMetricSource("signInFailures", source.signInFailures)
}

/** One refused sign-in in this process (counted here until a shared count is registered). */
export function countSignInFailure(): void {
  metrics().signInFailuresSeen.inc()
}

/** The upstream client's log events, as metrics: requests, retries, 429s. */
export function recordUpstreamEvent(event: UpstreamLogEvent): void {
  const m = metrics()
  if ((event.event === "request" || event.event === "token") && event.ms !== undefined) {
    const status = event.status !== undefined ? String(event.status) : (event.error ?? "error")
    m.upstreamRequests.observe({ operation: event.op, status }, event.ms / 1000)
    if (event.status === 429) m.upstreamRateLimited.inc({ operation: event.op })
  }
  if (event.event === "retry") m.upstreamRetries.inc({ operation: event.op })
}

/**
 * The route a request reached, as its file names it (`/api/conversions/[id]`), so one
 * metric series stands for every record: each path segment that is a route parameter's
 * value is replaced by the parameter's name.
 */
export function routePattern(pathname: string, params: Record<string, string | string[] | undefined>): string {
  const names = new Map<string, string>()
  for (const [name, value] of Object.entries(params)) {
    for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) names.set(encodeURIComponent(v), name)
  }
  return pathname
    .split("/")
    .map((segment) => {
      const name = names.get(segment) ?? names.get(encodeURIComponent(safeDecode(segment)))
      return name === undefined ? segment : `[${name}]`
    })
    .join("/")
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

/** One answered console API request. */
export function recordRequest(route: string, method: string, status: number, seconds: number): void {
  metrics().httpRequests.observe({ route, method, status: String(status) }, seconds)
}

/** One reconciler run: what it learned, or null when it failed. */
export function recordReconcilerRun(report: { succeeded: number; failed: number; unresolved: number } | null): void {
  const m = metrics()
  if (!report) {
    m.reconcilerRuns.inc({ result: "failed" })
    return
  }
  m.reconcilerRuns.inc({ result: "ok" })
  m.reconciledIntents.inc({ outcome: "succeeded" }, report.succeeded)
  m.reconciledIntents.inc({ outcome: "failed" }, report.failed)
  m.reconciledIntents.inc({ outcome: "unresolved" }, report.unresolved)
}

/** Prometheus' text exposition of every metric. */
export async function metricsText(): Promise<{ body: string; contentType: string }> {
  const { registry } = metrics()
  return { body: await registry.metrics(), contentType: registry.contentType }
}

export type WebhookHintResult = "accepted" | "invalid" | "unauthorized" | "too_large" | "off"

/** One webhook hint received, by what became of it. */
export function recordWebhookHint(result: WebhookHintResult): void {
  metrics().webhookHints.inc({ result })
}
