/**
 * The stable `code` of every problem the console answers (RFC 9457 allows extension
 * members; `code` sits beside `type` and `title`). The browser branches on these, never
 * on a title or a detail. Without zod, so any page may import them. docs/api.md lists
 * each code, its status and what the browser does; a test keeps the two in step.
 */

/** The console's own refusals and failures: code → HTTP status. */
export const CONSOLE_PROBLEM_CODES = {
  validation_failed: 400,
  unauthenticated: 401,
  forbidden_host: 403,
  forbidden_origin: 403,
  role_required: 403,
  not_allowed: 403,
  // Step-up: a decision needs a fresh passkey assertion over exactly what it authorises.
  step_up_required: 403,
  step_up_expired: 403,
  step_up_replayed: 403,
  step_up_digest_mismatch: 403,
  step_up_foreign_credential: 403,
  step_up_not_user_verified: 403,
  step_up_invalid: 403,
  passkey_invalid: 400,
  // Staff management (issue 35).
  last_admin: 409,
  staff_exists: 409,
  invitation_unusable: 410,
  // The policy under four eyes (issue 33).
  policy_stale: 409,
  policy_change_pending: 409,
  policy_change_expired: 409,
  not_found: 404,
  not_placed: 404,
  state_conflict: 409,
  ref_id_reused: 409,
  in_flight: 409,
  not_cancellable: 409,
  history_exists: 409,
  body_too_large: 413,
  unsupported_media_type: 415,
  limit_exceeded: 422,
  quote_not_current: 422,
  no_held_quote: 422,
  rate_limited: 429,
  internal_error: 500,
  upstream_unavailable: 502,
  upstream_misconfigured: 502,
  quotes_unavailable: 503,
  database_unavailable: 503,
  shutting_down: 503,
  upstream_timeout: 504,
  // Outcomes of approval requests, stored on their intents (the approval and intent pages show them).
  request_expired: 409,
  request_rejected: 409,
  request_withdrawn: 409,
  request_voided: 409,
  price_moved: 409,
} as const
export type ConsoleProblemCode = keyof typeof CONSOLE_PROBLEM_CODES

/**
 * The service's problems the console passes through, with their own type, title and
 * status, `meta.service: true`, and one of these codes: a named problem's slug, a missing
 * quote on an execution's create (the service's 404 there means just that), or any other refusal.
 */
export const SERVICE_PROBLEM_CODES = ["expired", "insufficient_funds", "rejected", "already_exists", "quote_not_found", "service_rejected"] as const
export type ServiceProblemCode = (typeof SERVICE_PROBLEM_CODES)[number]

export type ProblemCode = ConsoleProblemCode | ServiceProblemCode

/** Whether a problem (as parsed in the browser) carries one of `codes`. */
export function hasProblemCode(problem: { code?: string | undefined }, ...codes: ProblemCode[]): boolean {
  return problem.code !== undefined && (codes as string[]).includes(problem.code)
}
