import "server-only"
import type { Limiter, RateLimitBucket } from "@/lib/upstream/rate-limiter"

/**
 * A web-standard fetch: the global one, or the embedded sandbox's `sandbox.fetch`
 * (in-process, same HTTP semantics). Called with one Request, so both fit.
 */
export type UpstreamFetch = (request: Request) => Response | Promise<Response>

/** What the client tells its `log` hook. Never a token, a secret or a request body. */
export interface UpstreamLogEvent {
  event: "request" | "token" | "retry" | "rate_limit_wait" | "rate_limited" | "replayed" | "conflict" | "token_reused"
  op: string
  method?: string
  /** URL path only (no query, no host credentials). */
  path?: string
  attempt?: number
  status?: number
  ms?: number
  delayMs?: number
  /** A short reason: "timeout", "network", "body", or an error class name. */
  error?: string
  scopes?: string
}

export interface Runtime {
  fetch: UpstreamFetch
  now: () => number
  sleep: (ms: number) => Promise<void>
  random: () => number
  timeout: (ms: number) => RequestTimer
  timeoutMs: number
  limiter: Limiter
  log: (event: UpstreamLogEvent) => void
  /** Blanks out the client secret and every token this client holds. */
  redact: (text: string) => string
}

/** A timeout for one request: its signal aborts at the deadline; `clear` when done. */
export interface RequestTimer {
  signal: AbortSignal
  clear: () => void
}

export function realTimeout(ms: number): RequestTimer {
  const controller = new AbortController()
  const handle = setTimeout(() => controller.abort(new DOMException("The operation timed out.", "TimeoutError")), ms)
  return { signal: controller.signal, clear: () => clearTimeout(handle) }
}

export interface OutgoingRequest {
  op: string
  method: "GET" | "POST" | "PUT" | "DELETE"
  url: URL
  headers: Record<string, string>
  body?: string | undefined
  bucket: RateLimitBucket
  attempt: number
}

/** The result of one HTTP exchange, body included: failures are values, not throws. */
export type Exchange =
  | { kind: "answer"; status: number; statusText: string; headers: Headers; body: string; ms: number }
  | { kind: "network"; reason: "network" | "body"; message: string; ms: number }
  | { kind: "timeout"; ms: number }

class Aborted extends Error {}

/**
 * Races `work` against `signal`: in-process fetch handlers and body streams do not
 * always watch the signal, and a timeout must hold whatever the other side does.
 */
async function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  // The abandoned promise may still reject later; that must not be an unhandled rejection.
  work.catch(() => undefined)
  if (signal.aborted) throw new Aborted()
  let onAbort: () => void = () => undefined
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(new Aborted())
    signal.addEventListener("abort", onAbort, { once: true })
  })
  try {
    return await Promise.race([work, aborted])
  } finally {
    signal.removeEventListener("abort", onAbort)
  }
}

function describeFailure(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`.slice(0, 200)
  return "unknown failure"
}

/**
 * One request under the rate limiter and the timeout, reading the whole body. A body
 * that fails to arrive is a network failure: the service may have acted on the request.
 * Throws only RateLimitedError (from the limiter, before anything is sent).
 */
export async function exchange(runtime: Runtime, request: OutgoingRequest): Promise<Exchange> {
  const waited = await runtime.limiter.acquire(request.bucket)
  if (waited > 0) runtime.log({ event: "rate_limit_wait", op: request.op, delayMs: waited })

  const started = runtime.now()
  const timer = runtime.timeout(runtime.timeoutMs)
  try {
    return await exchangeWithin(runtime, request, timer.signal, started)
  } finally {
    timer.clear()
  }
}

async function exchangeWithin(runtime: Runtime, request: OutgoingRequest, signal: AbortSignal, started: number): Promise<Exchange> {
  const elapsed = () => runtime.now() - started
  const report = (result: Exchange): Exchange => {
    runtime.log({
      event: request.bucket === "token" ? "token" : "request",
      op: request.op,
      method: request.method,
      path: request.url.pathname,
      attempt: request.attempt,
      ms: result.ms,
      ...(result.kind === "answer" ? { status: result.status } : { error: result.kind === "timeout" ? "timeout" : result.reason }),
    })
    return result
  }

  let response: Response
  try {
    const outgoing = new Request(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body ?? null,
      signal,
    })
    response = await raceAbort(Promise.resolve().then(() => runtime.fetch(outgoing)), signal)
  } catch (error) {
    if (signal.aborted) return report({ kind: "timeout", ms: elapsed() })
    return report({ kind: "network", reason: "network", message: runtime.redact(describeFailure(error)), ms: elapsed() })
  }

  try {
    const body = await raceAbort(response.text(), signal)
    return report({
      kind: "answer",
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
      body,
      ms: elapsed(),
    })
  } catch (error) {
    response.body?.cancel().catch(() => undefined)
    if (signal.aborted) return report({ kind: "timeout", ms: elapsed() })
    return report({ kind: "network", reason: "body", message: runtime.redact(describeFailure(error)), ms: elapsed() })
  }
}

/** Retry-After as seconds or an HTTP date, in milliseconds from `now`; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (value === null) return undefined
  const trimmed = value.trim()
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000
  const date = Date.parse(trimmed)
  if (Number.isNaN(date)) return undefined
  return Math.max(0, date - now)
}


/** JSON.parse that answers undefined instead of throwing. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}
