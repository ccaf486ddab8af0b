import "server-only"
import type { Conversion, QuoteExecution } from "@/lib/schemas/records"

/**
 * Whether the service may have applied a request that failed:
 * - "rejected": it certainly did not (a 4xx answer, the local rate limit, a token
 *   problem before anything was sent, a 409 whose record is not ours);
 * - "unknown": it may have (a timeout, a dropped connection, a 5xx, an unreadable 2xx),
 *   also when an earlier attempt of the same call ended that way.
 * The console's intent log turns "rejected" into FAILED and "unknown" into UNKNOWN.
 */
export type UpstreamOutcome = "rejected" | "unknown"

interface UpstreamErrorOptions {
  outcome: UpstreamOutcome
  /** The client operation, e.g. "createQuoteExecution"; never a URL with secrets. */
  operation?: string | undefined
  /** The request could change state on the service (create, cancel, deposit, faults). */
  mutating?: boolean | undefined
  cause?: unknown
}

/** Where an error keeps the kinds of the classes it was made by (see UpstreamError[Symbol.hasInstance]). */
const KINDS = Symbol.for("treasury-console.upstream-error-kinds")

/** Base of every error this client throws. Messages never hold a token or a secret. */
export abstract class UpstreamError extends Error {
  /** The class's own kind; each subclass names its own (class names may be minified). */
  static readonly kind: string = "UpstreamError"

  outcome: UpstreamOutcome
  operation: string | undefined
  mutating: boolean
  /** HTTP attempts the failed call made (set when the call gives up). */
  attempts = 1

  constructor(message: string, options: UpstreamErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.outcome = options.outcome
    this.operation = options.operation
    this.mutating = options.mutating ?? false
    const kinds: string[] = []
    for (let c: unknown = new.target; typeof c === "function" && c !== Error; c = Object.getPrototypeOf(c)) {
      if (Object.hasOwn(c, "kind")) kinds.push(String((c as unknown as { kind: unknown }).kind))
    }
    Object.defineProperty(this, KINDS, { value: kinds })
  }

  /**
   * `instanceof` across copies of this module. The production build holds two: the runtime
   * (and its client, which throws these) is built from instrumentation.ts's copy, while route
   * handlers check errors with their own. A prototype check alone then fails, and a 403
   * Expired would become a 500; so an error also belongs to every class whose kind it carries.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    if (Function.prototype[Symbol.hasInstance].call(this, value)) return true
    if (typeof value !== "object" || value === null || !Object.hasOwn(this, "kind")) return false
    const kinds = (value as { [KINDS]?: unknown })[KINDS]
    return Array.isArray(kinds) && kinds.includes((this as unknown as { kind: string }).kind)
  }
}

/** An RFC 9457 problem as the service sent it (or as built from a non-problem 4xx). */
export interface UpstreamProblem {
  type: string
  title: string
  status: number
  detail?: string | undefined
  meta?: Record<string, unknown> | undefined
}

/** The service answered with a problem (4xx, or 429 after the last attempt). */
export class UpstreamProblemError extends UpstreamError {
  static override readonly kind: string = "UpstreamProblemError"
  override name = "UpstreamProblemError"
  readonly status: number
  readonly type: string
  readonly title: string
  readonly detail: string | undefined
  readonly meta: Record<string, unknown> | undefined
  /** Seconds from the service's Retry-After header, when it sent one. */
  readonly retryAfterSeconds: number | undefined

  constructor(
    problem: UpstreamProblem,
    options: Partial<UpstreamErrorOptions> & { retryAfterSeconds?: number | undefined } = {},
  ) {
    super(`${problem.status} ${problem.title}${problem.detail ? `: ${problem.detail}` : ""}`, {
      outcome: "rejected",
      ...options,
    })
    this.status = problem.status
    this.type = problem.type
    this.title = problem.title
    this.detail = problem.detail
    this.meta = problem.meta
    this.retryAfterSeconds = options.retryAfterSeconds
  }

  get problem(): UpstreamProblem {
    return { type: this.type, title: this.title, status: this.status, detail: this.detail, meta: this.meta }
  }
}

export type ExistingRecord =
  | { kind: "quote_execution"; record: QuoteExecution }
  | { kind: "conversion"; record: Conversion }

/**
 * 409 Already Exists for a `ref_id` whose existing record is not this request's: the
 * request was not applied (the ref_id belongs to something else).
 */
export class UpstreamConflictError extends UpstreamProblemError {
  static override readonly kind: string = "UpstreamConflictError"
  override name = "UpstreamConflictError"
  readonly existing: ExistingRecord

  constructor(problem: UpstreamProblem, existing: ExistingRecord, options: Partial<UpstreamErrorOptions> = {}) {
    super(problem, { ...options, outcome: "rejected" })
    this.existing = existing
  }
}

/** A failure that keeps the last HTTP status the service answered, when it answered. */
abstract class UpstreamStatusError extends UpstreamError {
  readonly status: number | undefined

  constructor(message: string, options: UpstreamErrorOptions & { status?: number | undefined }) {
    super(message, options)
    this.status = options.status
  }
}

/** The service could not be reached, dropped the connection, or answered 5xx (after retries). */
export class UpstreamUnavailableError extends UpstreamStatusError {
  static override readonly kind: string = "UpstreamUnavailableError"
  override name = "UpstreamUnavailableError"
}

/** No answer within the configured timeout (after retries, for retried calls). */
export class UpstreamTimeoutError extends UpstreamError {
  static override readonly kind: string = "UpstreamTimeoutError"
  override name = "UpstreamTimeoutError"
  readonly timeoutMs: number

  constructor(timeoutMs: number, options: UpstreamErrorOptions) {
    super(`the service did not answer within ${timeoutMs} ms`, options)
    this.timeoutMs = timeoutMs
  }
}

/** The console's credentials or scopes are wrong: a person has to fix the configuration. */
export class UpstreamConfigError extends UpstreamError {
  static override readonly kind: string = "UpstreamConfigError"
  override name = "UpstreamConfigError"

  constructor(message: string, options: Partial<UpstreamErrorOptions> = {}) {
    super(message, { outcome: "rejected", ...options })
  }
}

/** The service answered something that does not match the contract's schema. */
export class UpstreamResponseError extends UpstreamStatusError {
  static override readonly kind: string = "UpstreamResponseError"
  override name = "UpstreamResponseError"
  declare readonly status: number

  constructor(message: string, options: UpstreamErrorOptions & { status: number }) {
    super(message, options)
  }
}

/** The local rate limiter refused to send: waiting would take too long. Nothing was sent. */
export class RateLimitedError extends UpstreamError {
  static override readonly kind: string = "RateLimitedError"
  override name = "RateLimitedError"
  readonly retryAfterSeconds: number

  constructor(retryAfterSeconds: number, options: Partial<UpstreamErrorOptions> = {}) {
    super(`too many requests to the service; try again in ${retryAfterSeconds} s`, { outcome: "rejected", ...options })
    this.retryAfterSeconds = retryAfterSeconds
  }
}

export function isUpstreamError(error: unknown): error is UpstreamError {
  return error instanceof UpstreamError
}
