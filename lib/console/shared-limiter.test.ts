import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { sql } from "drizzle-orm"
import { createInstanceRegistry } from "@/lib/console/instances"
import { createSharedLimiter, createSoloLimiter } from "@/lib/console/shared-limiter"
import { type Database, openDatabase } from "@/lib/db/client"
import { RateLimitedError } from "@/lib/upstream"
import { createTestDatabase, testDrivers } from "@/test/db"

/** A clock that stands still; each sleep records the time it would wake at (the reserved send time). */
function standingClock(start = 1_800_000_000_000) {
  const clock = { t: start, sends: [] as number[] }
  return {
    clock,
    now: () => clock.t,
    sleep: (ms: number) => {
      clock.sends.push(clock.t + ms)
      return Promise.resolve()
    },
  }
}

/** The most send times within any window [t, t + windowMs). */
function busiestWindow(times: number[], windowMs = 1000): number {
  const sorted = [...times].sort((a, b) => a - b)
  let most = 0
  for (let end = 0, start = 0; end < sorted.length; end++) {
    while ((sorted[end] ?? 0) - (sorted[start] ?? 0) >= windowMs) start++
    most = Math.max(most, end - start + 1)
  }
  return most
}

describe.each(testDrivers())("shared rate limiter on %s", (driver) => {
  let database: Database
  beforeAll(async () => {
    database = await createTestDatabase(driver)
  })
  afterAll(async () => {
    await database?.close()
  })
  beforeEach(async () => {
    await database.db.execute(sql`update console_rate_buckets set slots = '{}', blocked_until = 0`)
  })

  function instance(time: ReturnType<typeof standingClock>, maxWaitMs = 60_000) {
    return createSharedLimiter({
      db: database.db,
      instances: () => 3,
      now: time.now,
      sleep: time.sleep,
      databaseClock: false,
      limits: { maxWaitMs },
    })
  }

  it("one instance alone may use the whole budget: 10 executions in the first second, paced 110 ms apart", async () => {
    const time = standingClock()
    const alone = instance(time)
    const waits = await Promise.all(Array.from({ length: 10 }, () => alone.acquire("quote_executions")))
    // Callers started together reach the database in any order over the pool's connections.
    expect([...waits].sort((x, y) => x - y)).toEqual(Array.from({ length: 10 }, (_, i) => i * 110))
    expect(await alone.acquire("quote_executions")).toBe(1100)
    expect(alone.status()).toMatchObject({ mode: "shared" })
  })

  it("three instances bursting together stay within 10 executions in any second, every one placed", async () => {
    const time = standingClock()
    const instances = [instance(time), instance(time), instance(time)]
    const waits = await Promise.all(
      instances.flatMap((limiter) => Array.from({ length: 20 }, () => limiter.acquire("quote_executions"))),
    )
    expect(waits).toHaveLength(60)
    expect(busiestWindow(time.clock.sends)).toBe(10)
    // About six seconds: the sum is the service's limit (less the pacing's 10% headroom), not 3 × 1/3.
    expect([...time.clock.sends].sort((a, b) => a - b).at(-1)! - time.clock.t).toBe(59 * 110)
  })

  it("first come, first served across instances: a flood from one does not push back a later caller's turn, nor jump ahead of it", async () => {
    const time = standingClock()
    const [a, b] = [instance(time), instance(time)]
    const order: string[] = []
    // Alternate callers, each reaching the database after the one before it.
    for (let i = 0; i < 24; i++) {
      const who = i % 2 === 0 ? "a" : "b"
      const waited = await (who === "a" ? a : b).acquire("quote_executions")
      order.push(`${who}@${waited}`)
    }
    expect(order).toEqual(Array.from({ length: 24 }, (_, i) => `${i % 2 === 0 ? "a" : "b"}@${i * 110}`))
    // A flood from a, then one call from b: b is served after the flood, never before a caller that came first.
    const flood = Array.from({ length: 15 }, () => a.acquire("other"))
    const floodWaits = await Promise.all(flood)
    const late = await b.acquire("other")
    expect(late).toBeGreaterThanOrEqual(Math.max(...floodWaits))
  })

  it("refuses with RateLimitedError when the wait would pass the maximum, and reserves nothing then", async () => {
    const time = standingClock()
    const limiter = instance(time, 2000)
    const results = await Promise.allSettled(Array.from({ length: 40 }, () => limiter.acquire("quote_executions")))
    // Slots at 0, 110, …, 1980 ms: 19 within the 2 s the callers may wait.
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(19)
    const refused = results.find((r) => r.status === "rejected")
    expect(refused?.status === "rejected" && refused.reason).toBeInstanceOf(RateLimitedError)
    time.clock.t += 3100
    expect(await limiter.acquire("quote_executions")).toBe(0)
  })

  it("a 429's pause holds the bucket for every instance", async () => {
    const time = standingClock()
    const [a, b] = [instance(time), instance(time)]
    a.pauseUntil("other", time.now() + 4000)
    // pauseUntil writes in the background; give it its round trip.
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(await b.acquire("other")).toBe(4000)
  })

  it("token requests leave 1.5 s apart: one per second, with room for the time they take to arrive", async () => {
    const time = standingClock()
    const limiter = instance(time)
    const waits = await Promise.all([limiter.acquire("token"), limiter.acquire("token")])
    expect([...waits].sort((x, y) => x - y)).toEqual([0, 1500])
  })

  it("counts the live instances through their heartbeats", async () => {
    const one = createInstanceRegistry(database.db, "instance-one")
    const two = createInstanceRegistry(database.db, "instance-two")
    await one.beat()
    expect(await two.beat()).toBe(2)
    await two.stop()
    expect(await one.beat()).toBe(1)
    await one.stop()
  })
})

describe("shared rate limiter without its database", () => {
  let unreachable: Database
  beforeAll(async () => {
    // Nothing listens on port 1: every query fails at once.
    unreachable = await openDatabase({ url: "postgres://console@127.0.0.1:1/nothing" })
  })
  afterAll(async () => {
    await unreachable.close()
  })

  it("falls back to its local 1/N share, says so, and keeps callers waiting rather than over the limit", async () => {
    const time = standingClock()
    const limiter = createSharedLimiter({ db: unreachable.db, instances: () => 3, now: time.now, sleep: time.sleep, limits: { maxWaitMs: 60_000 } })
    const waits = await Promise.all(Array.from({ length: 11 }, () => limiter.acquire("quote_executions")))
    expect(limiter.status()).toMatchObject({ mode: "local", instances: 3 })
    // 1/3 of 10 per second, every second: three sends at once, three a second later, …
    expect(waits).toEqual([0, 0, 0, 1000, 1000, 1000, 2000, 2000, 2000, 3000, 3000])
  })

  it("gives up on a database that hangs after its timeout, not the caller's", async () => {
    const time = standingClock()
    const hanging = {
      execute: () => new Promise<never>(() => undefined),
    } as unknown as Database["db"]
    const limiter = createSharedLimiter({ db: hanging, instances: () => 2, now: time.now, sleep: time.sleep, databaseTimeoutMs: 50 })
    expect(await limiter.acquire("other")).toBe(0)
    expect(limiter.status()).toMatchObject({ mode: "local", instances: 2 })
  })

  it("once fallen back, no caller waits for the database again: it is asked again off the callers' path, and the limiter is shared again when it answers", async () => {
    const time = standingClock()
    let answer: (() => void) | null = null
    let asked = 0
    // The first ask hangs past the timeout; the retry answers only when the test says so.
    const slow = {
      execute: () => {
        asked++
        if (asked === 1) return new Promise<never>(() => undefined)
        return new Promise((resolve) => (answer = () => resolve({ rows: [{ wait: 0 }] })))
      },
    } as unknown as Database["db"]
    const limiter = createSharedLimiter({ db: slow, instances: () => 2, now: time.now, sleep: time.sleep, databaseTimeoutMs: 50 })
    expect(await limiter.acquire("other")).toBe(0)
    expect(limiter.status()).toMatchObject({ mode: "local" })
    time.clock.t += 1500
    // Past the retry time: the database is asked again, but this caller does not wait for it.
    const started = performance.now()
    expect(await limiter.acquire("other")).toBe(0)
    expect(performance.now() - started).toBeLessThan(40)
    expect(asked).toBe(2)
    expect(limiter.status()).toMatchObject({ mode: "local" })
    answer!()
    await new Promise((resolve) => setTimeout(resolve, 10))
    expect(limiter.status()).toMatchObject({ mode: "shared" })
  })
})

describe("solo rate limiter (PGlite: the only instance there can be)", () => {
  it("keeps the whole budget in memory, paced as the shared one: a burst of 18 executions leaves 110 ms apart, ≤ 10 in any second", async () => {
    const time = standingClock()
    const solo = createSoloLimiter({ now: time.now, sleep: time.sleep })
    const waits = await Promise.all(Array.from({ length: 18 }, () => solo.acquire("quote_executions")))
    expect(waits).toEqual(Array.from({ length: 18 }, (_, i) => i * 110))
    expect(busiestWindow(waits)).toBeLessThanOrEqual(10)
    expect(solo.status()).toEqual({ mode: "solo", instances: 1, localSince: null })
  })

  it("holds a bucket the service paused, and refuses a call whose wait would pass maxWaitMs", async () => {
    const time = standingClock()
    const solo = createSoloLimiter({ now: time.now, sleep: time.sleep, limits: { maxWaitMs: 2000 } })
    solo.pauseUntil("other", time.clock.t + 1500)
    expect(await solo.acquire("other")).toBe(1500)
    solo.pauseUntil("other", time.clock.t + 5000)
    await expect(solo.acquire("other")).rejects.toBeInstanceOf(RateLimitedError)
    // Other buckets are not held.
    expect(await solo.acquire("quote_executions")).toBe(0)
  })
})
