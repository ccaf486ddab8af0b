import { describe, expect, it } from "vitest"
import { totalHistory } from "@/lib/console/overview-history"
import { toDecimal } from "@/lib/money"

const NOW = new Date("2026-03-10T12:00:00Z")
const hour = (h: number) => new Date(Date.UTC(2026, 2, 9, 12 + h)).toISOString()

/** A 24 h BTCUSD history: 90,000 until the day's open (midnight UTC), 100,000 after. */
const marketData = {
  history(market: string) {
    if (market !== "BTCUSD") return Promise.reject(new Error(`no history for ${market}`))
    return Promise.resolve({
      items: Array.from({ length: 25 }, (_, h) => ({ timestamp: hour(h), average_price: h < 12 ? "90000" : "100000" })),
      fetchedAt: NOW.getTime(),
      stale: false,
    })
  },
}

describe("the overview total's change since the UTC day's open", () => {
  it("values today's holdings at the open's prices; assets without a USD market count at their current price", async () => {
    const holdings = new Map([
      ["BTC", toDecimal("2")],
      ["USD", toDecimal("1000.50")],
    ])
    const prices = new Map([
      ["BTC", toDecimal("101000")],
      ["USD", toDecimal("1")],
    ])
    const total = toDecimal("203000.50")
    const h = await totalHistory({ marketData, holdings, prices, total, now: NOW })
    expect(h).not.toBeNull()
    expect(h!.opened_at).toBe("2026-03-10T00:00:00.000Z")
    // At 00:00 BTC was at 100,000: 2 × 100,000 + 1,000.50.
    expect(h!.open_usd).toBe("201000.50")
    expect(h!.change_usd).toBe("2000.00")
    expect(h!.change_percent).toBe("1.00")
    // The line: the history's points, then the total shown now.
    expect(h!.points[0]).toEqual({ t: hour(0), total_usd: "181000.50" })
    expect(h!.points.at(-1)).toEqual({ t: NOW.toISOString(), total_usd: "203000.50" })
  })

  it("is null when no held asset has a history (the service failed, or only cash is held)", async () => {
    const prices = new Map([["USD", toDecimal("1")], ["ETH", toDecimal("3000")]])
    expect(await totalHistory({ marketData, holdings: new Map([["USD", toDecimal("5")]]), prices, total: toDecimal("5"), now: NOW })).toBeNull()
    expect(await totalHistory({ marketData, holdings: new Map([["ETH", toDecimal("1")]]), prices, total: toDecimal("3000"), now: NOW })).toBeNull()
  })
})
