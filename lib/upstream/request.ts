import "server-only"
import { z } from "zod"
import { problemSlug } from "@/lib/schemas/problem"
import {
  UpstreamConfigError,
  UpstreamConflictError,
  UpstreamError,
  type UpstreamProblem,
  UpstreamProblemError,
  UpstreamResponseError,
  UpstreamTimeoutError,
  UpstreamUnavailableError,
} from "@/lib/upstream/errors"
import { bucketForPath } from "@/lib/upstream/rate-limiter"
import type { TokenManager } from "@/lib/upstream/token-manager"
import { reasonPhrase } from "@/lib/schemas/problem"
import { type Exchange, exchange, parseJson, parseRetryAfter, type Runtime } from "@/lib/upstream/transport"
import { releaseDatabaseDeadline } from "@/lib/db/deadline"
import { injectTraceContext, inSpan } from "@/lib/tracing"

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  maxAttempts: number
  /** Backoff before retry n is a random share (full jitter) of min(maxDelayMs, baseDelayMs × 2^(n−1)). */
  baseDelayMs: number
  maxDelayMs: number
  /** A Retry-After longer than this is not waited for: the call fails with the 429. */
  maxRetryAfterMs: number
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 3,
  baseDelayMs: 200,
  maxDelayMs: 2000,
  maxRetryAfterMs: 5000,
}

/** Statuses worth another attempt with the same body: the service was busy or broke. */
const RETRYABLE_STATUSES = new Set([429, 500, 502, 503, 504])

/** What a 409 Already Exists on a create turns into. */
export type AlreadyExistsVerdict<T> = { kind: "replayed"; record: T } | { kind: "conflict"; error: UpstreamConflictError }

export interface CallSpec<T> {
  op: string
  method: "GET" | "POST" | "PUT" | "DELETE"
  url: URL
  body?: unknown
  scopes: readonly string[]
  schema: z.ZodType<T>
  /** Retry retryable failures (reads, and creates that carry a ref_id). */
  retry: boolean
  /** The request can change state on the service. */
  mutating: boolean
  /** For creates: judge a 409 Already Exists (`meta.existing`). */
  onAlreadyExists?: (problem: UpstreamProblem) => AlreadyExistsVerdict<T>
}

export interface CallResult<T> {
  value: T
  replayed: boolean
  attempts: number
}

type Attempt<T> =
  | { kind: "ok"; value: T; replayed: boolean }
  | { kind: "fail"; error: UpstreamError; retry: boolean; retryAfterMs?: number | undefined }

/** A lenient reading of an error body: RFC 9457 fields when present, nothing required. */
const looseProblemSchema = z.object({
  type: z.string().optional(),
  title: z.string().optional(),
  status: z.number().optional(),
  detail: z.string().optional(),
  meta: z.record(z.string(), z.unknown()).optional(),
})

const MAX_DETAIL = 500

/** The problem in an error answer, or a generic one titled by the reason phrase. */
export function problemFromAnswer(
  answer: Extract<Exchange, { kind: "answer" }>,
  redact: (text: string) => string = (t) => t,
): UpstreamProblem {
  const generic: UpstreamProblem = { type: "about:blank", title: reasonPhrase(answer.status, answer.statusText), status: answer.status }
  const parsed = looseProblemSchema.safeParse(parseJson(answer.body))
  if (!parsed.success) return generic
  const { type, title, detail, meta } = parsed.data
  if (type === undefined && title === undefined && detail === undefined) return generic
  return {
    type: type ?? "about:blank",
    title: title ? redact(title) : generic.title,
    // The HTTP status is what happened; a body's status field can only echo it.
    status: answer.status,
    detail: detail === undefined ? undefined : redact(detail).slice(0, MAX_DETAIL),
    meta,
  }
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.join(".") || "(body)"}: ${issue.message}`)
    .join("; ")
}

/** Runs API calls: token, limiter, timeout, retries, problem+json → typed errors, zod on the way out. */
export function createCaller(runtime: Runtime, tokens: TokenManager, retryPolicy: RetryPolicy) {
  function interpret<T>(spec: CallSpec<T>, result: Exchange): Attempt<T> {
    const base = { operation: spec.op, mutating: spec.mutating }
    if (result.kind === "timeout") {
      return { kind: "fail", error: new UpstreamTimeoutError(runtime.timeoutMs, { ...base, outcome: "unknown" }), retry: true }
    }
    if (result.kind === "network") {
      const what = result.reason === "body" ? "the connection dropped while the answer was read" : "the service could not be reached"
      return {
        kind: "fail",
        error: new UpstreamUnavailableError(`${what} (${result.message})`, { ...base, outcome: "unknown" }),
        retry: true,
      }
    }
    const { status } = result
    if (status >= 200 && status < 300) {
      const json = parseJson(result.body)
      const parsed = json === undefined ? undefined : spec.schema.safeParse(json)
      if (parsed?.success) return { kind: "ok", value: parsed.data, replayed: false }
      const why = parsed ? describeIssues(parsed.error) : "not JSON"
      // A 2xx was processed by the service; the record is just unreadable here.
      return {
        kind: "fail",
        error: new UpstreamResponseError(`unexpected answer to ${spec.op}: ${why}`, { ...base, outcome: "unknown", status }),
        retry: false,
      }
    }
    if (RETRYABLE_STATUSES.has(status) && status !== 429) {
      return {
        kind: "fail",
        error: new UpstreamUnavailableError(`the service answered ${status} ${reasonPhrase(status, result.statusText)}`, {
          ...base,
          outcome: "unknown",
          status,
        }),
        retry: true,
      }
    }
    if (status >= 500) {
      return {
        kind: "fail",
        error: new UpstreamUnavailableError(`the service answered ${status}`, { ...base, outcome: "unknown", status }),
        retry: false,
      }
    }
    const problem = problemFromAnswer(result, runtime.redact)
    if (status === 429) {
      const retryAfterMs = parseRetryAfter(result.headers.get("retry-after"), runtime.now())
      if (retryAfterMs !== undefined) runtime.limiter.pauseUntil(bucketForPath(spec.url.pathname), runtime.now() + retryAfterMs)
      return {
        kind: "fail",
        error: new UpstreamProblemError(problem, {
          ...base,
          retryAfterSeconds: retryAfterMs === undefined ? undefined : Math.ceil(retryAfterMs / 1000),
        }),
        retry: true,
        retryAfterMs,
      }
    }
    // Already Exists by its type, or by what it carries: a 409 naming an existing record
    // is never taken for a plain refusal (that would make a placed record look FAILED).
    const namesExisting = problemSlug(problem) === "already-exists" || problem.meta?.existing !== undefined
    if (status === 409 && spec.onAlreadyExists && namesExisting) {
      const verdict = spec.onAlreadyExists(problem)
      if (verdict.kind === "replayed") {
        runtime.log({ event: "replayed", op: spec.op, status })
        return { kind: "ok", value: verdict.record, replayed: true }
      }
      runtime.log({ event: "conflict", op: spec.op, status })
      return { kind: "fail", error: verdict.error, retry: false }
    }
    if (status === 403 && problem.type === "about:blank" && /insufficient scope/i.test(problem.detail ?? "")) {
      return {
        kind: "fail",
        error: new UpstreamConfigError(`the console's token lacks the scope ${spec.op} needs (${problem.detail ?? ""})`, base),
        retry: false,
      }
    }
    return { kind: "fail", error: new UpstreamProblemError(problem, base), retry: false }
  }

  /** A failure to get a token: nothing reached the API. */
  function tokenFailure<T>(error: unknown): Attempt<T> {
    if (!(error instanceof UpstreamError)) throw error
    const retry =
      error instanceof UpstreamUnavailableError ||
      error instanceof UpstreamTimeoutError ||
      (error instanceof UpstreamProblemError && error.status === 429)
    const retryAfterMs =
      error instanceof UpstreamProblemError && error.retryAfterSeconds !== undefined ? error.retryAfterSeconds * 1000 : undefined
    return { kind: "fail", error, retry, retryAfterMs }
  }

  async function send<T>(spec: CallSpec<T>, token: string, attempt: number): Promise<Exchange> {
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: "application/json" }
    if (spec.body !== undefined) headers["content-type"] = "application/json"
    const refId = (spec.body as { ref_id?: unknown } | undefined)?.ref_id
    // One span per HTTP exchange: its operation, attempt and status; the ref_id of a create. Never the body.
    const attributes = { "upstream.operation": spec.op, "http.request.method": spec.method, "upstream.attempt": attempt, "upstream.retry": attempt > 1 }
    // A call that may change something at the service: what follows records its outcome,
    // no longer held to the request's database deadline (lib/db/deadline.ts).
    if (spec.method !== "GET") releaseDatabaseDeadline()
    return inSpan(`upstream ${spec.op}`, typeof refId === "string" ? { ...attributes, "upstream.ref_id": refId } : attributes, async (span) => {
      injectTraceContext(headers)
      const result = await exchange(runtime, {
        op: spec.op,
        method: spec.method,
        url: spec.url,
        headers,
        body: spec.body === undefined ? undefined : JSON.stringify(spec.body),
        bucket: bucketForPath(spec.url.pathname),
        attempt,
      })
      if (result.kind === "answer") span.setAttribute("http.response.status_code", result.status)
      else span.setAttribute("upstream.failure", result.kind)
      return result
    })
  }

  async function attemptOnce<T>(spec: CallSpec<T>, attempt: number): Promise<Attempt<T>> {
    let token: string
    try {
      token = await tokens.get(spec.scopes, spec.op)
    } catch (error) {
      return tokenFailure(error)
    }
    let result = await send(spec, token, attempt)
    if (result.kind === "answer" && result.status === 401) {
      // The token was revoked or expired early: one fresh token, one more try.
      tokens.invalidate(spec.scopes, token)
      try {
        token = await tokens.get(spec.scopes, spec.op)
      } catch (error) {
        return tokenFailure(error)
      }
      result = await send(spec, token, attempt)
      if (result.kind === "answer" && result.status === 401) {
        tokens.invalidate(spec.scopes, token)
        return {
          kind: "fail",
          error: new UpstreamConfigError("the service refused the console's access token", { operation: spec.op, mutating: spec.mutating }),
          retry: false,
        }
      }
    }
    return interpret(spec, result)
  }

  function backoff(attempt: number, retryAfterMs: number | undefined): number {
    const ceiling = Math.min(retryPolicy.maxDelayMs, retryPolicy.baseDelayMs * 2 ** (attempt - 1))
    const jittered = Math.floor(runtime.random() * ceiling)
    return retryAfterMs === undefined ? jittered : Math.max(retryAfterMs, jittered)
  }

  return async function call<T>(spec: CallSpec<T>): Promise<CallResult<T>> {
    const maxAttempts = spec.retry ? Math.max(1, retryPolicy.maxAttempts) : 1
    let ambiguous = false
    for (let attempt = 1; ; attempt++) {
      let result: Attempt<T>
      try {
        result = await attemptOnce(spec, attempt)
      } catch (error) {
        // The local limiter, or a 409 whose meta.existing cannot be read: final, not retried.
        if (!(error instanceof UpstreamError)) throw error
        result = { kind: "fail", error, retry: false }
      }
      if (result.kind === "ok") return { value: result.value, replayed: result.replayed, attempts: attempt }

      const { error } = result
      if (error.outcome === "unknown") ambiguous = true
      const tooLong = result.retryAfterMs !== undefined && result.retryAfterMs > retryPolicy.maxRetryAfterMs
      if (!result.retry || attempt >= maxAttempts || tooLong) {
        error.operation ??= spec.op
        error.mutating = spec.mutating
        error.attempts = attempt
        // An earlier attempt may have been applied; only a 409 naming another record rules that out.
        if (ambiguous && !(error instanceof UpstreamConflictError)) error.outcome = "unknown"
        throw error
      }
      const delayMs = backoff(attempt, result.retryAfterMs)
      runtime.log({ event: "retry", op: spec.op, attempt, delayMs, error: error.name })
      if (delayMs > 0) await runtime.sleep(delayMs)
    }
  }
}
