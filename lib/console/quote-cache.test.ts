import { describe, expect, it } from "vitest"
import { createQuoteCache } from "@/lib/console/quote-cache"
import type { Quote } from "@/lib/schemas/records"
import { UpstreamProblemError } from "@/lib/upstream"

const SERVICE_MARKETS = ["BTCUSD", "ETHUSD", "PAXGUSD", "SOLUSD"]

function quote(market: string, expiresAtMs: number): Quote {
  return {
    id: `${market}-${expiresAtMs}`,
    market,
    side: "BUY",
    price: "100.00",
    base_asset: market.slice(0, -3),
    quote_asset: "USD",
    created_at: new Date(expiresAtMs - 30_000).toISOString(),
    expires_at: new Date(expiresAtMs).toISOString(),
  }
}

const badRequest = (detail: string) =>
  new UpstreamProblemError({ type: "about:blank", title: "Bad Request", status: 400, detail })

/** A fake clock whose sleep moves time on, and a service that records every quotes call. */
function setup(service: { refuseWithoutMarkets?: boolean; markets?: string[] } = {}) {
  const clock = { t: 1_000_000 }
  const calls: string[][] = []
  const markets = service.markets ?? SERVICE_MARKETS
  let down = false
  let failNext: Error | null = null
  const cache = createQuoteCache({
    baseMarkets: ["BTCUSD", "ETHUSD"],
    now: () => clock.t,
    sleep: (ms) => {
      clock.t += ms
      return Promise.resolve()
    },
    fetchQuotes: (asked) => {
      calls.push([...asked])
      const once = failNext
      failNext = null
      if (once) return Promise.reject(once)
      if (down) return Promise.reject(new Error("down"))
      if (asked.length === 0 && service.refuseWithoutMarkets) return Promise.reject(badRequest("markets is required"))
      const unknown = asked.filter((m) => !markets.includes(m))
      if (unknown.length > 0) return Promise.reject(badRequest(`unknown market ${unknown.join(", ")}`))
      return Promise.resolve((asked.length > 0 ? asked : markets).map((m) => quote(m, clock.t + 30_000)))
    },
  })
  return {
    cache,
    calls,
    clock,
    setDown: (value: boolean) => {
      down = value
    },
    failNextWith: (error: Error) => {
      failNext = error
    },
  }
}

describe("quote cache", () => {
  it("finds a quote it served after newer ones replaced it, until the quote expires", async () => {
    const { cache, clock } = setup()
    const first = (await cache.get(["BTCUSD"])).quotes[0]!
    clock.t += 5_000
    const next = (await cache.get(["BTCUSD"])).quotes[0]!
    expect(next.id).not.toBe(first.id)
    expect(cache.held(first.id)).toEqual(first)
    clock.t = Date.parse(first.expires_at)
    expect(cache.held(first.id)).toBeNull()
    expect(cache.held("never-served")).toBeNull()
  })

  it("asks the service at most once per second, however many readers watch however many markets", async () => {
    const { cache, calls, clock } = setup()
    const watched = [["BTCUSD"], ["ETHUSD"], ["PAXGUSD"], ["BTCUSD", "ETHUSD"], ["SOLUSD"]]
    // 50 browsers on five different boards, polling every 250 ms for 5 seconds.
    for (let step = 0; step < 20; step++) {
      await Promise.all(Array.from({ length: 50 }, (_, i) => cache.get(watched[i % watched.length])))
      clock.t += 250
    }
    expect(calls.length).toBe(5)
    expect(calls.every((asked) => asked.length === 0)).toBe(true)
  })

  it("serves each reader only its markets, and lists every market the service has", async () => {
    const { cache } = setup()
    const snapshot = await cache.get(["PAXGUSD"])
    expect(snapshot.quotes.map((q) => q.market)).toEqual(["PAXGUSD"])
    expect(snapshot.markets).toEqual(["BTCUSD", "ETHUSD", "PAXGUSD", "SOLUSD"])
    expect((await cache.get([])).quotes.map((q) => q.market)).toEqual(SERVICE_MARKETS)
    expect((await cache.get(["NOPEUSD"])).quotes).toEqual([])
  })

  it("shares one call in flight between concurrent readers", async () => {
    let release: () => void = () => undefined
    let calls = 0
    const cache = createQuoteCache({
      fetchQuotes: async () => {
        calls += 1
        await new Promise<void>((resolve) => {
          release = resolve
        })
        return SERVICE_MARKETS.map((m) => quote(m, Date.now() + 30_000))
      },
    })
    const readers = Array.from({ length: 10 }, (_, i) => cache.get([SERVICE_MARKETS[i % 4]!]))
    await Promise.resolve()
    release()
    const snapshots = await Promise.all(readers)
    expect(calls).toBe(1)
    expect(snapshots.every((s) => s.quotes.length === 1)).toBe(true)
  })

  it("against a service that needs markets: asks once for the union of known and watched markets, once per second", async () => {
    const { cache, calls, clock } = setup({ refuseWithoutMarkets: true })
    const first = await cache.get(["BTCUSD"])
    expect(first.quotes.map((q) => q.market)).toEqual(["BTCUSD"])
    // The refused call without markets, then the union of the base markets and the asked one.
    expect(calls).toEqual([[], ["BTCUSD", "ETHUSD"]])
    clock.t += 100
    // A market nobody watched yet: a new call that includes it, no sooner than a second after the last.
    const before = clock.t
    const paxg = await cache.get(["PAXGUSD"])
    expect(paxg.quotes.map((q) => q.market)).toEqual(["PAXGUSD"])
    expect(calls.at(-1)).toEqual(["BTCUSD", "ETHUSD", "PAXGUSD"])
    expect(clock.t - before).toBe(900)
    // From then on the three share one call per second; the service is never asked without markets again.
    for (let step = 0; step < 12; step++) {
      await Promise.all([cache.get(["BTCUSD"]), cache.get(["ETHUSD"]), cache.get(["PAXGUSD"])])
      clock.t += 250
    }
    expect(calls.length).toBe(5)
    expect(calls.slice(2).every((asked) => asked.join() === "BTCUSD,ETHUSD,PAXGUSD")).toBe(true)
  })

  it("against a service that needs markets: a reader's unknown market does not take the others down, nor cost a call per refresh", async () => {
    const { cache, calls, clock } = setup({ refuseWithoutMarkets: true })
    await cache.get(["BTCUSD"])
    clock.t += 1000
    expect((await cache.get(["TYPOUSD"])).quotes).toEqual([])
    clock.t += 1000
    expect((await cache.get(["BTCUSD"])).quotes.map((q) => q.market)).toEqual(["BTCUSD"])
    // The refused market is not asked for again: one call per refresh, however often a reader insists.
    const before = calls.length
    for (let step = 0; step < 5; step++) {
      await Promise.all([cache.get(["TYPOUSD"]), cache.get(["BTCUSD"])])
      clock.t += 1000
    }
    expect(calls.length - before).toBe(5)
    expect(calls.slice(before).every((asked) => !asked.includes("TYPOUSD"))).toBe(true)
  })

  it("a passing 401 or 503 does not make it stop asking for every market", async () => {
    const { cache, calls, clock, failNextWith } = setup()
    failNextWith(new UpstreamProblemError({ type: "about:blank", title: "Service Unavailable", status: 503 }))
    await expect(cache.get(["BTCUSD"])).rejects.toThrow()
    clock.t += 1000
    await cache.get(["BTCUSD"])
    expect(calls).toEqual([[], []])
  })

  it("serves the last quotes that have not expired, marked stale, when a refresh fails", async () => {
    const { cache, clock, setDown } = setup()
    const first = await cache.get(["BTCUSD"])
    setDown(true)
    clock.t += 2_000
    const second = await cache.get(["BTCUSD"])
    expect(second.stale).toBe(true)
    expect(second.quotes.map((q) => q.id)).toEqual(first.quotes.map((q) => q.id))
    clock.t += 30_000
    await expect(cache.get(["BTCUSD"])).rejects.toThrow("down")
    setDown(false)
    clock.t += 1_000
    const recovered = await cache.get(["BTCUSD"])
    expect(recovered.stale).toBe(false)
  })
})

describe("spacing at the service", () => {
  it("a call whose answer took long (its token fetched first) is followed by the next no sooner than 1 s after that answer", async () => {
    const clock = { t: 1_000_000 }
    const sentAt: number[] = []
    let first = true
    const cache = createQuoteCache({
      baseMarkets: ["BTCUSD"],
      now: () => clock.t,
      sleep: (ms) => {
        clock.t += ms
        return Promise.resolve()
      },
      fetchQuotes: () => {
        // The first call reaches the service 600 ms after it started; the others at once.
        if (first) clock.t += 600
        first = false
        sentAt.push(clock.t)
        return Promise.resolve([quote("BTCUSD", clock.t + 30_000)])
      },
    })
    await cache.get(null)
    clock.t += 500
    await cache.get(null)
    await cache.get(null)
    expect(sentAt).toHaveLength(2)
    expect(sentAt[1]! - sentAt[0]!).toBeGreaterThanOrEqual(1000)
  })
})
