import "server-only"
import { RateLimitedError } from "@/lib/upstream/errors"

/**
 * The service limits per IP (token endpoint 1/s, quote executions 10/s, everything else
 * 50/s) and throttles an offender for five minutes, so the console must never go over.
 * A sliding window per bucket guarantees at most N sends in any window, also across a
 * burst (a token bucket would let 2N through in one second: a full bucket plus refill).
 */
export type RateLimitBucket = "token" | "quote_executions" | "other"

export interface RateLimits {
  /** Requests per window to the token endpoint. */
  token: number
  /** Requests per window to /profiles/{id}/quote-executions (create, get and list). */
  quoteExecutions: number
  /** Requests per window to everything else. */
  other: number
  windowMs: number
  /** Longest a caller waits for a slot; beyond it the caller gets RateLimitedError. */
  maxWaitMs: number
}

export const DEFAULT_RATE_LIMITS: RateLimits = {
  token: 1,
  quoteExecutions: 10,
  other: 50,
  windowMs: 1000,
  maxWaitMs: 2000,
}

/**
 * The share of one of `instances` console instances behind one address that cannot
 * coordinate (the database is gone): 1/N of every count in the same window, so N instances
 * together stay within the limits in every second, not only on average (at least one
 * request per window each: a token request is rare enough).
 */
export function instanceShare(limits: RateLimits, instances: number): RateLimits {
  const n = Math.max(1, Math.floor(instances))
  const share = (limit: number) => (Number.isFinite(limit) && limit > 0 ? Math.max(1, Math.floor(limit / n)) : limit)
  return { ...limits, token: share(limits.token), quoteExecutions: share(limits.quoteExecutions), other: share(limits.other) }
}

/**
 * What the client asks of a limiter: this process's own (RateLimiter), or one shared by
 * every instance through the database (lib/console/shared-limiter.ts).
 */
export interface Limiter {
  /** Waits for a send slot in `bucket`; returns the wait in ms, or throws RateLimitedError. */
  acquire(bucket: RateLimitBucket): Promise<number>
  /** The service answered 429 with Retry-After: hold the whole bucket until `time` (ms since the epoch). */
  pauseUntil(bucket: RateLimitBucket, time: number): void
}

/** The limit of `bucket` under `limits`. */
export function limitOf(limits: RateLimits, bucket: RateLimitBucket): number {
  if (bucket === "token") return limits.token
  if (bucket === "quote_executions") return limits.quoteExecutions
  return limits.other
}

export interface LimiterClock {
  now: () => number
  sleep: (ms: number) => Promise<void>
}

const QUOTE_EXECUTIONS_PATH = /\/profiles\/[^/]+\/quote-executions(\/|$)/

/** Which limit an API path counts against (the token endpoint is chosen by its caller). */
export function bucketForPath(pathname: string): RateLimitBucket {
  return QUOTE_EXECUTIONS_PATH.test(pathname) ? "quote_executions" : "other"
}

export class RateLimiter implements Limiter {
  private readonly slots = new Map<RateLimitBucket, number[]>()
  private readonly blockedUntil = new Map<RateLimitBucket, number>()

  constructor(
    private readonly limits: RateLimits,
    private readonly clock: LimiterClock,
    /** How far apart one bucket's sends leave at least (0: a burst may leave at once). */
    private readonly paceMs: (bucket: RateLimitBucket) => number = () => 0,
  ) {}

  /**
   * Reserves the earliest send time for one request in `bucket` and waits until then.
   * Reservations are made synchronously, so concurrent callers are served in order.
   * Returns how long the caller waited; throws RateLimitedError (nothing is reserved)
   * when the wait would exceed `maxWaitMs`.
   */
  async acquire(bucket: RateLimitBucket): Promise<number> {
    const limit = limitOf(this.limits, bucket)
    const now = this.clock.now()
    const blocked = this.blockedUntil.get(bucket) ?? 0
    const { windowMs } = this.limits
    const slots = (this.slots.get(bucket) ?? []).filter((t) => t > now - windowMs)
    let at = Math.max(now, blocked)
    // Infinity (or 0) switches a bucket's limit off; a pause after a 429 still holds.
    const limited = Number.isFinite(limit) && limit > 0
    if (limited && slots.length >= limit) {
      // The slot `limit` places back must have left the window before this one starts.
      const older = slots[slots.length - limit] ?? now
      at = Math.max(at, older + windowMs)
    }
    const latest = slots[slots.length - 1]
    if (limited && latest !== undefined) at = Math.max(at, latest + this.paceMs(bucket))
    if (at - now > this.limits.maxWaitMs) {
      this.slots.set(bucket, slots)
      throw new RateLimitedError(Math.max(1, Math.ceil((at - now) / 1000)))
    }
    if (limited) {
      slots.push(at)
      slots.sort((a, b) => a - b)
    }
    this.slots.set(bucket, slots)
    return this.waitUntil(at, now)
  }

  /** The service answered 429 with Retry-After: hold the whole bucket until then. */
  pauseUntil(bucket: RateLimitBucket, time: number): void {
    this.blockedUntil.set(bucket, Math.max(this.blockedUntil.get(bucket) ?? 0, time))
  }

  private async waitUntil(at: number, now: number): Promise<number> {
    const wait = at - now
    if (wait > 0) await this.clock.sleep(wait)
    return Math.max(0, wait)
  }
}
