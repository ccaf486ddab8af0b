import "server-only"

/** The real service's rates: token 1/s, quote executions 10/s, the rest 50/s. */
export const RATE_LIMITS = { token: 1, quote_executions: 10, other: 50 } as const
type RateBucket = keyof typeof RATE_LIMITS

/**
 * Token buckets in memory, per process, keyed by the caller (see app.ts): each holds one
 * second's worth of requests and refills continuously. Over the limit, the answer says how
 * many whole seconds to wait. This is the real service's rates, not its model: that one
 * averages over 5 minutes per IP and throttles an offender for 5 minutes, so the sandbox
 * refuses bursts the service would take, and forgives at once what it would hold against
 * the caller (docs/sandbox.md, "Rate limits").
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; atMs: number }>()

  take(key: string, bucket: RateBucket, nowMs: number): { ok: true } | { ok: false; retryAfterS: number } {
    const rate = RATE_LIMITS[bucket]
    const id = `${bucket}\u0000${key}`
    const state = this.buckets.get(id) ?? { tokens: rate, atMs: nowMs }
    const elapsedS = Math.max(0, nowMs - state.atMs) / 1000
    state.tokens = Math.min(rate, state.tokens + elapsedS * rate)
    state.atMs = nowMs
    if (this.buckets.size > 10_000) this.buckets.clear()
    this.buckets.set(id, state)
    if (state.tokens >= 1) {
      state.tokens -= 1
      return { ok: true }
    }
    return { ok: false, retryAfterS: Math.max(1, Math.ceil((1 - state.tokens) / rate)) }
  }

  reset(): void {
    this.buckets.clear()
  }
}

export function bucketFor(method: string, pathname: string): RateBucket {
  if (pathname.endsWith("/oauth2/token")) return "token"
  if (/\/v2\/profiles\/[^/]+\/quote-executions(\/|$)/.test(pathname)) return "quote_executions"
  return "other"
}
