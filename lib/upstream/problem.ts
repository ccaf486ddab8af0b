import "server-only"
import { NAMED_PROBLEMS, type Problem, problemSlug } from "@/lib/schemas/problem"
import {
  RateLimitedError,
  UpstreamConfigError,
  UpstreamConflictError,
  type UpstreamError,
  UpstreamProblemError,
  UpstreamResponseError,
  UpstreamTimeoutError,
  UpstreamUnavailableError,
} from "@/lib/upstream/errors"

export interface ProblemAnswer {
  problem: Problem
  /** Extra response headers, e.g. Retry-After for a 429. */
  headers: Record<string, string>
}

const MAYBE_APPLIED = " The request may have been applied; the console will check and record the result."

/** Client errors of the service that mean something to the person who made the request. */
function passesThrough(error: UpstreamProblemError): boolean {
  const slug = problemSlug(error)
  if (slug !== null && slug in NAMED_PROBLEMS) return true
  return error.status >= 400 && error.status < 500 && error.status !== 401 && error.status !== 403 && error.status !== 429
}

function plain(status: number, title: string, detail: string, headers: Record<string, string> = {}): ProblemAnswer {
  return { problem: { type: "about:blank", title, status, detail }, headers }
}

/**
 * The console API's answer (RFC 9457) for an error of this client:
 * - the service's named problems (Expired, Insufficient Funds, Rejected, Already Exists)
 *   and its other 4xx (400, 404, 409 …) pass through with their detail and meta;
 * - a timeout → 504, an outage, an unreadable answer or a configuration fault → 502, each
 *   with a plain detail (never a stack, a token or a secret);
 * - the local rate limit, or the service's own 429 → 429 with Retry-After.
 * A create whose outcome is unknown never passes a 4xx through: a person must not read
 * "Expired" for a trade that may have executed.
 */
export function upstreamErrorToProblem(error: UpstreamError): ProblemAnswer {
  const unsure = error.outcome === "unknown" && error.mutating ? MAYBE_APPLIED : ""

  if (error instanceof RateLimitedError) {
    const seconds = String(error.retryAfterSeconds)
    return plain(429, "Too Many Requests", `Too many requests to the trading service. Try again in ${seconds} s.${unsure}`, {
      "retry-after": seconds,
    })
  }
  if (error instanceof UpstreamConflictError) {
    return {
      problem: {
        type: error.type,
        title: error.title,
        status: 409,
        ...(error.detail === undefined ? {} : { detail: error.detail }),
        meta: { existing: error.existing.record },
      },
      headers: {},
    }
  }
  if (error instanceof UpstreamProblemError) {
    if (unsure) return plain(502, "Bad Gateway", `The trading service did not confirm the request.${unsure}`)
    if (error.status === 429) {
      const seconds = String(error.retryAfterSeconds ?? 1)
      return plain(429, "Too Many Requests", `The trading service is busy. Try again in ${seconds} s.`, { "retry-after": seconds })
    }
    if (passesThrough(error)) {
      return {
        problem: {
          type: error.type,
          title: error.title,
          status: error.status,
          ...(error.detail === undefined ? {} : { detail: error.detail }),
          ...(error.meta === undefined ? {} : { meta: error.meta }),
        },
        headers: {},
      }
    }
    return plain(502, "Bad Gateway", "The trading service refused the console's request.")
  }
  if (error instanceof UpstreamTimeoutError) {
    return plain(504, "Gateway Timeout", `The trading service did not answer in time.${unsure}`)
  }
  if (error instanceof UpstreamUnavailableError) {
    return plain(502, "Bad Gateway", `The trading service is unavailable right now. Try again shortly.${unsure}`)
  }
  if (error instanceof UpstreamResponseError) {
    return plain(502, "Bad Gateway", `The trading service sent an answer the console could not read.${unsure}`)
  }
  if (error instanceof UpstreamConfigError) {
    return plain(502, "Bad Gateway", `The console's connection to the trading service is misconfigured.${unsure}`)
  }
  return plain(502, "Bad Gateway", `The trading service request failed.${unsure}`)
}
