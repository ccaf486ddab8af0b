import "server-only"
import { formatPrice } from "@/lib/format"
import { CONSOLE_PROBLEM_CODES, type ConsoleProblemCode, PROBLEM_CONTENT_TYPE, type Problem, reasonPhrase } from "@/lib/schemas/problem"

export { CONSOLE_PROBLEM_CODES, type ConsoleProblemCode, type ProblemCode, SERVICE_PROBLEM_CODES } from "@/lib/schemas/problem"

/**
 * RFC 9457 problems. HttpProblem and problemResponse serve the console and the embedded
 * sandbox alike; the constructors below are the console's, each with its stable `code`
 * (lib/schemas/problem-codes.ts, docs/api.md). The sandbox imitates the service, whose
 * problems carry no code: it builds its own (lib/sandbox/problems.ts).
 */
export class HttpProblem extends Error {
  override name = "HttpProblem"
  readonly problem: Problem
  readonly headers: Record<string, string>
  constructor(problem: Partial<Problem> & { status: number }, headers: Record<string, string> = {}) {
    const full: Problem = {
      type: problem.type ?? "about:blank",
      title: problem.title ?? reasonPhrase(problem.status),
      status: problem.status,
      ...(problem.code !== undefined ? { code: problem.code } : {}),
      ...(problem.detail !== undefined ? { detail: problem.detail } : {}),
      ...(problem.instance !== undefined ? { instance: problem.instance } : {}),
      ...(problem.meta !== undefined ? { meta: problem.meta } : {}),
    }
    super(full.detail ?? full.title)
    this.problem = full
    this.headers = headers
  }
}

/** The problem as an `application/problem+json` response (a thrown HttpProblem brings its own headers). */
export function problemResponse(problem: Problem | HttpProblem, headers: Record<string, string> = {}): Response {
  const [body, own] = problem instanceof HttpProblem ? [problem.problem, problem.headers] : [problem, {}]
  return new Response(JSON.stringify(body), {
    status: body.status,
    headers: { "content-type": PROBLEM_CONTENT_TYPE, "cache-control": "no-store", ...own, ...headers },
  })
}

interface ProblemExtras {
  title?: string | undefined
  meta?: Record<string, unknown> | undefined
}

/** A console problem's body: the code's status, its reason phrase as the title unless given. */
export function consoleProblemBody(code: ConsoleProblemCode, detail: string, extras: ProblemExtras = {}): Problem {
  const status = CONSOLE_PROBLEM_CODES[code]
  return {
    type: "about:blank",
    title: extras.title ?? reasonPhrase(status),
    status,
    code,
    detail,
    ...(extras.meta !== undefined ? { meta: extras.meta } : {}),
  }
}

function consoleProblem(code: ConsoleProblemCode, detail: string, extras: ProblemExtras = {}, headers: Record<string, string> = {}): HttpProblem {
  return new HttpProblem(consoleProblemBody(code, detail, extras), headers)
}

/** 400 naming every offending field: `meta.fields` maps field → what is wrong. */
export function validationFailed(fields: Record<string, string>, detail?: string): HttpProblem {
  const summary = Object.entries(fields)
    .map(([field, message]) => `${field}: ${message}`)
    .join("; ")
  return consoleProblem("validation_failed", detail ?? `invalid request: ${summary}`, { meta: { fields } })
}

export function unsupportedMediaType(detail: string): HttpProblem {
  return consoleProblem("unsupported_media_type", detail)
}

export function bodyTooLarge(detail: string): HttpProblem {
  return consoleProblem("body_too_large", detail)
}

export function unauthenticated(detail: string, headers: Record<string, string> = {}): HttpProblem {
  return consoleProblem("unauthenticated", detail, {}, headers)
}

/** The Host is not the console's own name (DNS rebinding). */
export function forbiddenHost(detail: string): HttpProblem {
  return consoleProblem("forbidden_host", detail)
}

/** A write that did not come from the console's own pages. */
export function forbiddenOrigin(detail: string): HttpProblem {
  return consoleProblem("forbidden_origin", detail)
}

/** The signed-in role is below what the route needs. */
export function roleRequired(required: string, actual: string | null, detail?: string): HttpProblem {
  return consoleProblem("role_required", detail ?? `This needs the ${required} role; you are ${actual ?? "not signed in"}.`, { meta: { required_role: required } })
}

/** This person may not take this action on this thing, whatever their role (four eyes). */
export function notAllowed(detail: string): HttpProblem {
  return consoleProblem("not_allowed", detail)
}

export function notFound(detail: string, meta?: Record<string, unknown>): HttpProblem {
  return consoleProblem("not_found", detail, { meta })
}

/** A create under this ref_id was refused, certainly: nothing was placed; a new submission is safe. */
export function notPlaced(detail: string, meta: Record<string, unknown>): HttpProblem {
  return consoleProblem("not_placed", detail, { meta: { ...meta, placed: false } })
}

/** The thing is in a state that does not allow the action; `meta.state` says which, when known. */
export function stateConflict(detail: string, meta?: Record<string, unknown>): HttpProblem {
  return consoleProblem("state_conflict", detail, { meta })
}

export function refIdReused(refId: string): HttpProblem {
  return consoleProblem("ref_id_reused", `ref_id ${refId} was already used for a different request; start a new submission.`, {
    meta: { fields: { ref_id: "already used for a different request" } },
  })
}

/** A create under this ref_id is on its way, waits for approval, or its outcome is not known yet. */
export function inFlight(detail: string, meta: Record<string, unknown> = {}): HttpProblem {
  return consoleProblem("in_flight", detail, { meta: { ...meta, in_flight: true } })
}

export function notCancellable(detail: string): HttpProblem {
  return consoleProblem("not_cancellable", detail)
}

/** The sandbox already has a past (records or snapshots before today's cutoff): a past week is generated once, on a sandbox with none. */
export function historyExists(detail: string): HttpProblem {
  return consoleProblem("history_exists", detail)
}

/** Over a limit of the approval policy; `meta.limit` says which (per_order, per_day). */
export function limitExceeded(detail: string, meta: Record<string, unknown>): HttpProblem {
  return consoleProblem("limit_exceeded", detail, { title: "Limit Exceeded", meta })
}

export function quoteNotCurrent(
  detail = "reviewed_quote: give the quote's market, side and price; this quote is no longer the current one.",
  fields: Record<string, string> = { reviewed_quote: "is required once the quote is no longer the current one" },
): HttpProblem {
  return consoleProblem("quote_not_current", detail, { meta: { fields } })
}

/** An execution names a quote the console did not serve to this staff member (or no longer remembers). */
export function quoteNotServed(quoteId: string): HttpProblem {
  return quoteNotCurrent(`quote_id: the console did not serve quote ${quoteId} to you, or no longer remembers it; take a fresh quote.`, {
    quote_id: "was not served to you by this console",
  })
}

export function noHeldQuote(side: string, market: string): HttpProblem {
  return consoleProblem("no_held_quote", `reviewed_quote.market: no held ${side} quote for ${market}.`, {
    meta: { fields: { "reviewed_quote.market": "has no held quote" } },
  })
}

/** An approval needs a held quote to execute at, and there is none right now. */
export function quotesUnavailable(side: string | null, market: string | null): HttpProblem {
  return consoleProblem("quotes_unavailable", `No held ${side} quote for ${market} right now; try again in a moment.`)
}

export function rateLimited(detail: string, retryAfterSeconds: number): HttpProblem {
  return consoleProblem("rate_limited", detail, {}, { "retry-after": String(retryAfterSeconds) })
}

/** The database cannot do the work now (unreachable, out of connections, past a timeout): nothing was done, try again. */
export function databaseUnavailable(retryAfterSeconds: number): HttpProblem {
  return consoleProblem(
    "database_unavailable",
    "The console's database is not answering in time; nothing was done. Try again in a moment.",
    {},
    { "retry-after": String(retryAfterSeconds) },
  )
}

/** This instance is shutting down: a write is refused before anything is done; another instance takes it. */
export function shuttingDown(retryAfterSeconds: number): HttpProblem {
  return consoleProblem("shutting_down", "This console instance is shutting down; nothing was done. Send it again.", {}, { "retry-after": String(retryAfterSeconds) })
}

export function internalError(requestId: string): HttpProblem {
  return consoleProblem("internal_error", `Something went wrong on the console's side. Quote request id ${requestId} when reporting it.`, {
    meta: { request_id: requestId },
  })
}

// How an approval request ended without a placement, as its intent records it: shown on
// the approval and intent pages, never an HTTP answer of its own.

export function requestExpired(): Problem {
  return consoleProblemBody("request_expired", "no one approved the request before it expired; nothing was sent", { title: "Expired" })
}

export function requestRejected(checker: string, reason: string): Problem {
  return consoleProblemBody("request_rejected", `rejected by ${checker}: ${reason}`, { title: "Rejected" })
}

export function requestWithdrawn(): Problem {
  return consoleProblemBody("request_withdrawn", "the maker withdrew the request; nothing was sent", { title: "Withdrawn" })
}

/** A request whose maker no longer has access (removed, or a role that may not place it): voided, never placed. */
export function requestVoided(reason: string): Problem {
  return consoleProblemBody("request_voided", `voided: ${reason}; nothing was sent`, { title: "Voided" })
}

export function priceMoved(side: string | null, price: string | undefined, limit: string | null): Problem {
  return consoleProblemBody("price_moved", `the held ${side} price ${formatPrice(price)} is past the limit price ${formatPrice(limit)}; nothing was placed`, { title: "Price Moved" })
}

export type StepUpRefusal = "step_up_expired" | "step_up_replayed" | "step_up_digest_mismatch" | "step_up_foreign_credential" | "step_up_not_user_verified" | "step_up_invalid"

/** 403: this decision needs a passkey assertion; `meta.step_up` holds the challenge to sign and the digest it is bound to. */
export function stepUpRequired(detail: string, stepUp: Record<string, unknown>): HttpProblem {
  return consoleProblem("step_up_required", detail, { meta: { step_up: stepUp } })
}

/** 403: the assertion given does not authorise this decision; the code says why. Nothing changed. */
export function stepUpRefused(code: StepUpRefusal, detail: string): HttpProblem {
  return consoleProblem(code, detail)
}

/** 400: a passkey registration that does not verify (its challenge, origin, RP ID or attestation). */
export function passkeyInvalid(detail: string): HttpProblem {
  return consoleProblem("passkey_invalid", detail)
}

/** 409: the change would leave the team without an active admin. Nothing changed. */
export function lastAdmin(detail: string): HttpProblem {
  return consoleProblem("last_admin", detail)
}

/** 409: a policy change made against a version that is no longer the one in force (it ends STALE). Nothing else changed. */
export function policyStale(detail: string, meta: Record<string, unknown>): HttpProblem {
  return consoleProblem("policy_stale", detail, { meta })
}

/** 409: another policy change is waiting for a second admin; one at a time. Nothing changed. */
export function policyChangePending(detail: string, meta: Record<string, unknown>): HttpProblem {
  return consoleProblem("policy_change_pending", detail, { meta })
}

/** 409: the policy change expired before a second admin decided on it (it ends EXPIRED). Nothing else changed. */
export function policyChangeExpired(detail: string, meta: Record<string, unknown>): HttpProblem {
  return consoleProblem("policy_change_expired", detail, { meta })
}

/** 409: an invitation for someone already on the staff. Nothing changed. */
export function staffExists(detail: string): HttpProblem {
  return consoleProblem("staff_exists", detail)
}

/** 410: an invitation link used, withdrawn, expired or unknown (`meta.reason`). Nothing changed. */
export function invitationUnusable(detail: string, reason: "used" | "withdrawn" | "expired" | "unknown"): HttpProblem {
  return consoleProblem("invitation_unusable", detail, { meta: { reason } })
}
