import "server-only"
import { consoleProblemBody } from "@/lib/problem"
import { type ConsoleProblemCode, NAMED_PROBLEMS, type Problem, type ServiceProblemCode, problemSlug } from "@/lib/schemas/problem"
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

function plain(code: ConsoleProblemCode, detail: string, headers: Record<string, string> = {}): ProblemAnswer {
  return { problem: consoleProblemBody(code, detail), headers }
}

/**
 * The code of a problem of the service's that passes through: its named problem's slug;
 * a 404 to an execution's create, which the service answers only for a quote it does not
 * have (its API reference: "Could not find quote"); any other refusal.
 */
function serviceCode(error: UpstreamProblemError): ServiceProblemCode {
  switch (problemSlug(error)) {
    case "expired":
      return "expired"
    case "insufficient-funds":
      return "insufficient_funds"
    case "rejected":
      return "rejected"
    case "already-exists":
      return "already_exists"
  }
  if (error.status === 404 && error.operation === "createQuoteExecution") return "quote_not_found"
  return "service_rejected"
}

/**
 * The console API's answer (RFC 9457) for an error of this client:
 * - the service's named problems (Expired, Insufficient Funds, Rejected, Already Exists)
 *   and its other 4xx (400, 404, 409 …) pass through with their type, title, detail and
 *   meta, plus a `code` and `meta.service: true`;
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
    return plain("rate_limited", `Too many requests to the trading service. Try again in ${seconds} s.${unsure}`, {
      "retry-after": seconds,
    })
  }
  if (error instanceof UpstreamConflictError) {
    return {
      problem: {
        type: error.type,
        title: error.title,
        status: 409,
        code: "already_exists",
        ...(error.detail === undefined ? {} : { detail: error.detail }),
        meta: { existing: error.existing.record, service: true },
      },
      headers: {},
    }
  }
  if (error instanceof UpstreamProblemError) {
    if (unsure) return plain("upstream_unavailable", `The trading service did not confirm the request.${unsure}`)
    if (error.status === 429) {
      const seconds = String(error.retryAfterSeconds ?? 1)
      return plain("rate_limited", `The trading service is busy. Try again in ${seconds} s.`, { "retry-after": seconds })
    }
    if (passesThrough(error)) {
      return {
        problem: {
          type: error.type,
          title: error.title,
          status: error.status,
          code: serviceCode(error),
          ...(error.detail === undefined ? {} : { detail: error.detail }),
          meta: { ...error.meta, service: true },
        },
        headers: {},
      }
    }
    // A 401 or 403 that is none of the named problems: the console's credentials or scopes.
    return plain("upstream_misconfigured", "The trading service refused the console's request.")
  }
  if (error instanceof UpstreamTimeoutError) {
    return plain("upstream_timeout", `The trading service did not answer in time.${unsure}`)
  }
  if (error instanceof UpstreamUnavailableError) {
    return plain("upstream_unavailable", `The trading service is unavailable right now. Try again shortly.${unsure}`)
  }
  if (error instanceof UpstreamResponseError) {
    return plain("upstream_unavailable", `The trading service sent an answer the console could not read.${unsure}`)
  }
  if (error instanceof UpstreamConfigError) {
    return plain("upstream_misconfigured", `The console's connection to the trading service is misconfigured.${unsure}`)
  }
  return plain("upstream_unavailable", `The trading service request failed.${unsure}`)
}
