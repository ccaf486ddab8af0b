import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createMarketData, createTtlCache } from "@/lib/console/market-data"
import { CHART_RANGE_NAMES } from "@/lib/schemas/market-data"
import { type ConsoleHarness, createConsoleHarness } from "@/test/console"

describe("the shared market-data cache", () => {
  let h: ConsoleHarness
  beforeAll(async () => {
    h = await createConsoleHarness()
  })
  afterAll(async () => {
    await h?.close()
  })

  /** The real client against the sandbox, counting history calls per market and range. */
  function counted(now: () => number) {
    const calls = new Map<string, number>()
    const data = createMarketData({
      now,
      upstream: {
        listHistoricalPrices: (market, query) => {
          const key = `${market}|${query.maxDataPoints}`
          calls.set(key, (calls.get(key) ?? 0) + 1)
          return h.upstream.listHistoricalPrices(market, query)
        },
        listPrices: (markets) => {
          calls.set("prices", (calls.get("prices") ?? 0) + 1)
          return h.upstream.listPrices(markets)
        },
      },
    })
    return { data, calls }
  }

  it("answers any number of dashboards with one history call per market and range per 10 s", async () => {
    let t = 1_000_000
    const { data, calls } = counted(() => t)
    const readers = Array.from({ length: 50 }, (_, i) => data.history(i % 2 ? "BTCUSD" : "ETHUSD", CHART_RANGE_NAMES[i % 4]!))
    const answers = await Promise.all(readers)
    for (const a of answers) expect(a.items.length).toBeGreaterThan(10)
    expect([...calls.values()].every((n) => n === 1)).toBe(true)
    expect(calls.size).toBe(4) // BTCUSD on 24h and 30d, ETHUSD on 1h and 7d
    t += 9_999
    await data.history("BTCUSD", "24h")
    expect([...calls.values()].reduce((a, b) => a + b)).toBe(4)
    t += 1
    await Promise.all([data.history("BTCUSD", "24h"), data.history("BTCUSD", "24h")])
    expect([...calls.values()].reduce((a, b) => a + b)).toBe(5)
  })

  it("asks for each range's points: 1 h by the minute, 24 h by 5 minutes, 7 d by the hour, 30 d by 2 hours", async () => {
    const { data } = counted(() => Date.now())
    const step = async (range: (typeof CHART_RANGE_NAMES)[number]) => {
      const { items } = await data.history("LTCUSD", range)
      return Date.parse(items[1]!.timestamp) - Date.parse(items[0]!.timestamp)
    }
    expect(await step("1h")).toBe(60_000)
    expect(await step("24h")).toBe(300_000)
    expect(await step("7d")).toBe(3_600_000)
    expect(await step("30d")).toBe(7_200_000)
  })

  it("prices: one call per 10 s for every USD market, with current and yesterday's price", async () => {
    let t = 5_000_000
    const { data, calls } = counted(() => t)
    const [a, b] = await Promise.all([data.prices(), data.prices()])
    expect(a.items.map((p) => p.market)).toContain("BTCUSD")
    expect(b).toEqual(a)
    expect(calls.get("prices")).toBe(1)
    t += 10_000
    await data.prices()
    expect(calls.get("prices")).toBe(2)
  })
})

describe("the markets' tick rates", () => {
  let h: ConsoleHarness
  beforeAll(async () => {
    h = await createConsoleHarness()
  })
  afterAll(async () => {
    await h?.close()
  })

  it("are the service's tick_rate per market, asked once per window however many readers ask", async () => {
    let t = 0
    let calls = 0
    const data = createMarketData({
      now: () => t,
      marketsTtlMs: 600_000,
      upstream: {
        listHistoricalPrices: (market, query) => h.upstream.listHistoricalPrices(market, query),
        listPrices: (markets) => h.upstream.listPrices(markets),
        listMarkets: () => {
          calls++
          return h.upstream.listMarkets()
        },
      },
    })
    const [a, b] = await Promise.all([data.tickRates(), data.tickRates()])
    const listed = await h.upstream.listMarkets()
    expect(Object.keys(a).length).toBe(listed.length)
    for (const m of listed) expect(a[m.market]).toBe(m.tick_rate)
    expect(b).toEqual(a)
    expect(calls).toBe(1)
    t += 600_000
    await data.tickRates()
    expect(calls).toBe(2)
  })

  it("are empty when the service does not answer, so prices fall back to the decimals by size", async () => {
    const data = createMarketData({
      upstream: {
        listHistoricalPrices: () => Promise.reject(new Error("unused")),
        listPrices: () => Promise.reject(new Error("unused")),
        listMarkets: () => Promise.reject(new Error("service down")),
      },
    })
    expect(await data.tickRates()).toEqual({})
  })
})

describe("the TTL cache under failures", () => {
  it("holds a failure for the window (no hammering) and serves the last good answer marked stale", async () => {
    let t = 0
    let calls = 0
    let fail = false
    const cache = createTtlCache<number>({ ttlMs: 10_000, now: () => t })
    const load = () => {
      calls++
      return fail ? Promise.reject(new Error("service down")) : Promise.resolve(calls)
    }
    expect(await cache.get("k", load)).toMatchObject({ data: 1, stale: false })
    t += 10_000
    fail = true
    expect(await cache.get("k", load)).toMatchObject({ data: 1, stale: true })
    expect(await cache.get("k", load)).toMatchObject({ data: 1, stale: true })
    expect(calls).toBe(2)
    await expect(cache.get("other", load)).rejects.toThrow("service down")
    await expect(cache.get("other", load)).rejects.toThrow("service down")
    expect(calls).toBe(3)
  })
})
