import { describe, expect, it } from "vitest"
import { createQuoteCache } from "@/lib/console/quote-cache"
import type { Quote } from "@/lib/schemas/records"

function quote(market: string, expiresAtMs: number): Quote {
  return {
    id: `${market}-${expiresAtMs}`,
    market,
    side: "BUY",
    price: "100.00",
    base_asset: market.slice(0, 3),
    quote_asset: "USD",
    created_at: new Date(expiresAtMs - 30_000).toISOString(),
    expires_at: new Date(expiresAtMs).toISOString(),
  }
}

describe("quote cache", () => {
  it("asks the service at most once per second per set of markets, however many readers", async () => {
    let t = 1_000_000
    const calls: string[][] = []
    const cache = createQuoteCache({
      now: () => t,
      fetchQuotes: (markets) => {
        calls.push([...markets])
        return Promise.resolve(markets.map((m) => quote(m, t + 30_000)))
      },
    })
    // 50 browsers polling every 250 ms for 5 seconds.
    for (let step = 0; step < 20; step++) {
      await Promise.all(Array.from({ length: 50 }, () => cache.get(["ETHUSD", "BTCUSD"])))
      t += 250
    }
    expect(calls.length).toBe(5)
    expect(calls[0]).toEqual(["BTCUSD", "ETHUSD"])
  })

  it("shares one call in flight between concurrent readers", async () => {
    let release: () => void = () => undefined
    let calls = 0
    const cache = createQuoteCache({
      fetchQuotes: async (markets) => {
        calls += 1
        await new Promise<void>((resolve) => {
          release = resolve
        })
        return markets.map((m) => quote(m, Date.now() + 30_000))
      },
    })
    const readers = Array.from({ length: 10 }, () => cache.get(["BTCUSD"]))
    release()
    const snapshots = await Promise.all(readers)
    expect(calls).toBe(1)
    expect(new Set(snapshots.map((s) => s.quotes[0]?.id)).size).toBe(1)
  })

  it("serves the last quotes that have not expired, marked stale, when a refresh fails", async () => {
    let t = 5_000_000
    let fail = false
    const cache = createQuoteCache({
      now: () => t,
      fetchQuotes: (markets) => (fail ? Promise.reject(new Error("down")) : Promise.resolve(markets.map((m) => quote(m, t + 10_000)))),
    })
    const first = await cache.get(["BTCUSD"])
    fail = true
    t += 2_000
    const second = await cache.get(["BTCUSD"])
    expect(second.stale).toBe(true)
    expect(second.quotes.map((q) => q.id)).toEqual(first.quotes.map((q) => q.id))
    t += 20_000
    await expect(cache.get(["BTCUSD"])).rejects.toThrow("down")
  })
})
