import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createQuoteCache } from "@/lib/console/quote-cache"
import { createQuoteFeed, createSoloQuoteFeed, type QuoteFeed } from "@/lib/console/quote-feed"
import type { Database } from "@/lib/db/client"
import type { Quote } from "@/lib/schemas/records"
import { createTestDatabase, testDrivers } from "@/test/db"

const MARKETS = ["BTCUSD", "ETHUSD"]

function quote(market: string, at: number): Quote {
  return {
    id: `${market}-${at}`,
    market,
    side: "BUY",
    price: "100.00",
    base_asset: market.slice(0, -3),
    quote_asset: "USD",
    created_at: new Date(at).toISOString(),
    expires_at: new Date(at + 30_000).toISOString(),
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** The service's quotes endpoint, counting every call whichever instance makes it. */
function service() {
  const calls: { at: number; by: string }[] = []
  return {
    calls,
    fetchFor: (by: string) => (asked: readonly string[]) => {
      const at = Date.now()
      calls.push({ at, by })
      return Promise.resolve((asked.length > 0 ? asked : MARKETS).map((m) => quote(m, at)))
    },
  }
}

describe.each(testDrivers())("one quotes poller for every instance, on %s", (driver) => {
  let database: Database
  const feeds: QuoteFeed[] = []
  beforeAll(async () => {
    database = await createTestDatabase(driver)
  })
  afterAll(async () => {
    for (const feed of feeds) await feed.stop()
    await database?.close()
  })

  function instance(name: string, svc: ReturnType<typeof service>): QuoteFeed {
    const feed = createQuoteFeed({
      db: database.db,
      id: name,
      cache: createQuoteCache({ fetchQuotes: svc.fetchFor(name), baseMarkets: MARKETS }),
    })
    feeds.push(feed)
    return feed
  }

  it("three instances with readers: one polls, the others serve its quotes, the service sees ≤ 1 call per second; the poller dies and another takes over within 3 s", async () => {
    const svc = service()
    const [a, b, c] = [instance("a", svc), instance("b", svc), instance("c", svc)]
    const first = await a.get(["BTCUSD"])
    expect(first.quotes.map((q) => q.market)).toEqual(["BTCUSD"])
    expect(a.status().poller).toBe(true)

    // Readers on all three for three seconds.
    const started = Date.now()
    const seen = new Map<string, number>()
    while (Date.now() - started < 3000) {
      for (const [name, feed] of [["a", a], ["b", b], ["c", c]] as const) {
        const snapshot = await feed.get(["BTCUSD", "ETHUSD"])
        expect(snapshot.quotes).toHaveLength(2)
        seen.set(name, Math.max(seen.get(name) ?? 0, snapshot.fetchedAt))
      }
      await sleep(50)
    }
    expect(new Set(svc.calls.map((c) => c.by))).toEqual(new Set(["a"]))
    expect(b.status().poller || c.status().poller).toBe(false)
    // Followers see the poller's quotes, not quotes of their own.
    expect(seen.get("b")).toBeGreaterThan(started)
    const window = svc.calls.filter((call) => call.at >= started)
    expect(window.length).toBeLessThanOrEqual(Math.ceil((Date.now() - started) / 1000) + 1)
    const gaps = window.slice(1).map((call, i) => call.at - (window[i]?.at ?? 0))
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(990)

    // The poller dies where it stands: no clean hand-over, its lease just stops being renewed.
    a.halt()
    const died = Date.now()
    let resumedAt = 0
    while (Date.now() - died < 6000) {
      const snapshot = await b.get(["BTCUSD"])
      await c.get(["BTCUSD"])
      if (snapshot.fetchedAt > died && svc.calls.some((call) => call.by !== "a")) {
        resumedAt = Date.now()
        break
      }
      await sleep(50)
    }
    expect(resumedAt).toBeGreaterThan(0)
    expect(resumedAt - died).toBeLessThanOrEqual(3000)
    expect([b.status().poller, c.status().poller].filter(Boolean)).toHaveLength(1)
    // Never two pollers at once: calls stay at least a second apart across the hand-over.
    const all = svc.calls.map((call) => call.at)
    const allGaps = all.slice(1).map((t, i) => t - (all[i] ?? 0))
    expect(Math.min(...allGaps)).toBeGreaterThanOrEqual(990)
  }, 20_000)
})

describe("solo quote feed (PGlite: the only instance there can be)", () => {
  it("serves readers from its own cache: at most one service call per second, the quotes it served stay held", async () => {
    let t = Date.now()
    const now = () => t
    const calls: number[] = []
    const fetchQuotes = (asked: readonly string[]) => {
      calls.push(t)
      return Promise.resolve((asked.length > 0 ? asked : MARKETS).map((m) => quote(m, t)))
    }
    const cache = createQuoteCache({ fetchQuotes, baseMarkets: MARKETS, now, sleep: () => Promise.resolve() })
    const feed = createSoloQuoteFeed(cache, now)
    expect(feed.status()).toEqual({ poller: true, ageSeconds: null, local: false })
    const first = await Promise.all([feed.get(["BTCUSD"]), feed.get(null), feed.get(["ETHUSD"])])
    expect(calls).toHaveLength(1)
    expect(first[0].quotes.map((q) => q.market)).toEqual(["BTCUSD"])
    expect(first[1].quotes.map((q) => q.market)).toEqual(MARKETS)
    t += 400
    await feed.get(["BTCUSD"])
    expect(calls).toHaveLength(1)
    expect(feed.status().ageSeconds).toBeCloseTo(0.4)
    t += 700
    const later = await feed.get(["BTCUSD"])
    expect(calls).toHaveLength(2)
    expect(later.quotes[0]?.id).not.toBe(first[0].quotes[0]?.id)
    const earlier = first[0].quotes[0]
    expect(earlier && feed.held(earlier.id)).toEqual(earlier)
  })
})
