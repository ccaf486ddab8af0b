import { beforeEach, describe, expect, it } from "vitest"
import { createUpstreamClient } from "@/lib/upstream/client"
import { RateLimitedError, UpstreamError } from "@/lib/upstream/errors"
import { bucketForPath, DEFAULT_RATE_LIMITS, instanceShare, RateLimiter } from "@/lib/upstream/rate-limiter"
import { FakeClock, FakeUpstream, PROFILE_ID, QUOTE_ID, testConfig } from "@/test/fake-upstream"

let clock: FakeClock
let upstream: FakeUpstream

beforeEach(() => {
  clock = new FakeClock()
  upstream = new FakeUpstream(clock)
})

/** The most requests that fall in any window [t, t + windowMs). */
function busiestWindow(times: number[], windowMs = 1000): number {
  const sorted = [...times].sort((a, b) => a - b)
  let most = 0
  let start = 0
  for (let end = 0; end < sorted.length; end++) {
    while ((sorted[end] ?? 0) - (sorted[start] ?? 0) >= windowMs) start++
    most = Math.max(most, end - start + 1)
  }
  return most
}

describe("RateLimiter", () => {
  it("keeps a burst of 100 within 10 per second, in arrival order", async () => {
    const limiter = new RateLimiter({ ...DEFAULT_RATE_LIMITS, quoteExecutions: 10, maxWaitMs: 60_000 }, clock)
    const start = clock.now()
    const sent: number[] = []
    await Promise.all(
      Array.from({ length: 100 }, async (_, i) => {
        await limiter.acquire("quote_executions")
        sent[i] = clock.now() - start
      }),
    )
    expect(busiestWindow(sent)).toBe(10)
    expect(sent).toEqual(Array.from({ length: 100 }, (_, i) => Math.floor(i / 10) * 1000))
  })

  it("refuses with RateLimitedError when the wait would exceed maxWaitMs, reserving nothing", async () => {
    const limiter = new RateLimiter({ ...DEFAULT_RATE_LIMITS, quoteExecutions: 10, maxWaitMs: 2000 }, clock)
    const results = await Promise.allSettled(Array.from({ length: 50 }, () => limiter.acquire("quote_executions")))
    const refused = results.filter((r) => r.status === "rejected")
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(30)
    expect(refused).toHaveLength(20)
    const reason: unknown = refused[0]?.reason
    expect(reason).toBeInstanceOf(RateLimitedError)
    expect(reason).toMatchObject({ retryAfterSeconds: 3, outcome: "rejected" })
    // The refused callers took no slot: three seconds on, a full window is free again.
    clock.advance(3000)
    const again = await Promise.allSettled(Array.from({ length: 10 }, () => limiter.acquire("quote_executions")))
    expect(again.every((r) => r.status === "fulfilled")).toBe(true)
  })

  it("three instances each keeping its share: together they stay within 10 executions in every second", async () => {
    const limiters = Array.from(
      { length: 3 },
      () => new RateLimiter(instanceShare({ ...DEFAULT_RATE_LIMITS, maxWaitMs: 600_000 }, 3), clock),
    )
    const start = clock.now()
    const sent: number[] = []
    await Promise.all(
      limiters.flatMap((limiter) =>
        Array.from({ length: 100 }, async () => {
          await limiter.acquire("quote_executions")
          sent.push(clock.now() - start)
        }),
      ),
    )
    // 300 sends at 3 per second each: 9 in every second, never a burst of 30.
    expect(Math.max(...sent)).toBe(33_000)
    expect(busiestWindow(sent)).toBe(9)
  })

  it("an instance keeping a third of the limits makes the 4th execution of a burst wait, not fail; the token stays possible", async () => {
    const share = instanceShare(DEFAULT_RATE_LIMITS, 3)
    expect(share).toMatchObject({ token: 1, quoteExecutions: 3, other: 16, windowMs: 1000 })
    const limiter = new RateLimiter(share, clock)
    const start = clock.now()
    const waited = await Promise.all(Array.from({ length: 4 }, () => limiter.acquire("quote_executions")))
    expect(waited).toEqual([0, 0, 0, 1000])
    expect(clock.now() - start).toBe(1000)
  })

  it("keeps buckets apart", async () => {
    const limiter = new RateLimiter({ ...DEFAULT_RATE_LIMITS, maxWaitMs: 0 }, clock)
    for (let i = 0; i < 10; i++) await limiter.acquire("quote_executions")
    for (let i = 0; i < 50; i++) await limiter.acquire("other")
    await limiter.acquire("token")
    await expect(limiter.acquire("quote_executions")).rejects.toBeInstanceOf(RateLimitedError)
    await expect(limiter.acquire("other")).rejects.toBeInstanceOf(RateLimitedError)
    await expect(limiter.acquire("token")).rejects.toBeInstanceOf(RateLimitedError)
  })

  it("Infinity switches a bucket off", async () => {
    const limiter = new RateLimiter({ ...DEFAULT_RATE_LIMITS, other: Infinity, maxWaitMs: 0 }, clock)
    for (let i = 0; i < 500; i++) await limiter.acquire("other")
  })

  it("classifies paths: /profiles/{id}/quote-executions (create, get, list) vs everything else", () => {
    expect(bucketForPath("/v2/profiles/p1/quote-executions")).toBe("quote_executions")
    expect(bucketForPath("/v2/profiles/p1/quote-executions/e1")).toBe("quote_executions")
    expect(bucketForPath("/v2/profiles/p1/balances")).toBe("other")
    expect(bucketForPath("/v2/quotes")).toBe("other")
    expect(bucketForPath("/v2/conversion/stablecoins")).toBe("other")
  })
})

describe("the client under a burst", () => {
  it("sends at most 10 quote executions per second, however many callers", async () => {
    const api = createUpstreamClient(testConfig(clock, upstream, { limits: { maxWaitMs: 10_000 } }))
    const results = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        api.createQuoteExecution(PROFILE_ID, { quote_id: QUOTE_ID, base_amount: "0.01", ref_id: `burst-${i}` }),
      ),
    )
    expect(results).toHaveLength(60)
    const posts = upstream.apiRequests("POST").map((r) => r.at)
    expect(posts).toHaveLength(60)
    expect(busiestWindow(posts)).toBeLessThanOrEqual(10)
    expect(upstream.tokenRequests).toHaveLength(1)
  })

  it("sends at most 50 other requests per second", async () => {
    const api = createUpstreamClient(testConfig(clock, upstream, { limits: { maxWaitMs: 10_000 } }))
    await Promise.all(Array.from({ length: 200 }, () => api.listBalances(PROFILE_ID)))
    const times = upstream.requests.map((r) => r.at)
    expect(times).toHaveLength(200)
    expect(busiestWindow(times)).toBeLessThanOrEqual(50)
  })

  it("callers beyond the bounded wait get RateLimitedError (rejected) and send nothing", async () => {
    const api = createUpstreamClient(testConfig(clock, upstream))
    const results = await Promise.allSettled(
      Array.from({ length: 40 }, (_, i) =>
        api.createQuoteExecution(PROFILE_ID, { quote_id: QUOTE_ID, base_amount: "0.01", ref_id: `over-${i}` }),
      ),
    )
    const refused = results.flatMap((r) => (r.status === "rejected" ? [r.reason as unknown] : []))
    expect(refused).toHaveLength(10)
    for (const error of refused) {
      expect(error).toBeInstanceOf(RateLimitedError)
      expect((error as RateLimitedError).outcome).toBe("rejected")
    }
    expect(upstream.apiRequests("POST")).toHaveLength(30)
    expect(busiestWindow(upstream.apiRequests("POST").map((r) => r.at))).toBeLessThanOrEqual(10)
  })

  it("asks the token endpoint at most once per second", async () => {
    const api = createUpstreamClient(testConfig(clock, upstream))
    for (let i = 0; i < 4; i++) {
      await api.listProfiles()
      upstream.revokeAllTokens()
    }
    const times = upstream.tokenRequests.map((r) => r.at)
    expect(times).toHaveLength(4)
    expect(busiestWindow(times)).toBe(1)
  })

  it("a 429 with Retry-After holds the whole bucket: the next caller waits it out", async () => {
    const api = createUpstreamClient(testConfig(clock, upstream, { retry: { maxAttempts: 1 } }))
    upstream.script.push({ kind: "respond", status: 429, body: "", headers: { "retry-after": "2" } })
    const refusedAt = clock.now()
    await expect(api.listProfiles()).rejects.toBeInstanceOf(UpstreamError)
    await api.listQuotes(["BTCUSD"])
    expect((upstream.requests[1]?.at ?? 0) - refusedAt).toBeGreaterThanOrEqual(2000)
  })

  it("a Retry-After longer than the bounded wait turns the next caller away locally", async () => {
    const api = createUpstreamClient(testConfig(clock, upstream, { retry: { maxAttempts: 1 } }))
    upstream.script.push({ kind: "respond", status: 429, body: "", headers: { "retry-after": "30" } })
    await expect(api.listProfiles()).rejects.toBeInstanceOf(UpstreamError)
    const error = await api.listQuotes(["BTCUSD"]).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(RateLimitedError)
    expect((error as RateLimitedError).retryAfterSeconds).toBe(30)
    expect(upstream.requests).toHaveLength(1)
  })
})
