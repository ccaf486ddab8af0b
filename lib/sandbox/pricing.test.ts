import { describe, expect, it } from "vitest"
import { type Decimal, toDecimal } from "@/lib/money"
import { decodeCursor, encodeCursor, timeBound } from "@/lib/sandbox/cursor"
import { FaultInjector } from "@/lib/sandbox/faults"
import { ASSET_PRICING, marketPrices, marketTickPlaces, movedTooFar, priceDecimals, referenceUsd, stepMid } from "@/lib/sandbox/pricing"
import { SANDBOX_MARKETS } from "@/lib/sandbox/pricing"
import type { RuntimeSettings } from "@/lib/sandbox/settings"

function referenceMids(): Map<string, Decimal> {
  return new Map(Object.keys(ASSET_PRICING).map((asset) => [asset, referenceUsd(asset)]))
}

describe("the price walk", () => {
  it("is a pure function of the seed, the state and the second", () => {
    const start = toDecimal("95000")
    expect(stepMid("BTC", start, 100, 101, 7).toString()).toBe(stepMid("BTC", start, 100, 101, 7).toString())
    expect(stepMid("BTC", start, 100, 101, 7).eq(stepMid("BTC", start, 100, 101, 8))).toBe(false)
    expect(stepMid("BTC", start, 100, 100, 7).eq(start)).toBe(true)
    expect(stepMid("USD", toDecimal("1"), 0, 1000, 7).toString()).toBe("1")
  })

  it("stays near its reference: a day of steps keeps BTC within a few percent", () => {
    let mid = referenceUsd("BTC")
    let worst = 0
    for (let second = 1; second <= 86_400; second += 60) {
      mid = stepMid("BTC", mid, second - 60, second, 3)
      worst = Math.max(worst, Math.abs(mid.div(referenceUsd("BTC")).minus(1).toNumber()))
    }
    expect(worst).toBeLessThan(0.08)
    expect(worst).toBeGreaterThan(0)
  })

  it("moves less within a quote's life than the Rejected threshold", () => {
    for (const asset of Object.keys(ASSET_PRICING)) {
      for (let seed = 1; seed <= 20; seed++) {
        const start = referenceUsd(asset)
        const later = stepMid(asset, start, 0, 30, seed)
        expect(movedTooFar(start, later), `${asset} seed ${seed}`).toBe(false)
      }
    }
  })

  it("quotes every market with BUY above the mid above SELL, at the market's tick", () => {
    const mids = referenceMids()
    for (const market of SANDBOX_MARKETS) {
      const { mid, buy, sell } = marketPrices(market, mids)
      expect(buy.gt(mid), market).toBe(true)
      expect(sell.lt(mid), market).toBe(true)
      expect(buy.decimalPlaces()).toBeLessThanOrEqual(marketTickPlaces(market))
      expect(sell.decimalPlaces()).toBeLessThanOrEqual(marketTickPlaces(market))
    }
  })

  it("keeps a market's tick when its price crosses a size boundary (the tick_rate GET /v2/markets states)", () => {
    expect(marketTickPlaces("LTCUSD")).toBe(4)
    expect(marketTickPlaces("BTCUSD")).toBe(2)
    expect(marketTickPlaces("MATICUSD")).toBe(6)
    // LTC (reference 95) walked above 100: still quoted to 0.0001, not 0.01.
    const mids = new Map(referenceMids())
    mids.set("LTC", toDecimal("101.23456789"))
    const { buy, sell } = marketPrices("LTCUSD", mids)
    expect(buy.gt(100)).toBe(true)
    expect(buy.decimalPlaces()).toBeGreaterThan(2)
    expect(buy.decimalPlaces()).toBeLessThanOrEqual(4)
    expect(sell.decimalPlaces()).toBeLessThanOrEqual(4)
    expect(priceDecimals(buy)).toBe(2)
  })

  it("rejects beyond a 10% move either way, not at it", () => {
    const quoted = toDecimal("100")
    expect(movedTooFar(quoted, toDecimal("110"))).toBe(false)
    expect(movedTooFar(quoted, toDecimal("110.01"))).toBe(true)
    expect(movedTooFar(quoted, toDecimal("89.99"))).toBe(true)
  })
})

describe("cursors and time bounds", () => {
  it("round-trips a cursor and refuses tampering or the other order", () => {
    const cursor = { createdAt: new Date("2026-01-02T03:04:05.678Z"), id: "0e9cf5af-b378-4995-becf-549a87dd0113", order: "DESC" as const }
    expect(decodeCursor(encodeCursor(cursor), "DESC")).toEqual(cursor)
    expect(() => decodeCursor(encodeCursor(cursor), "ASC")).toThrow()
    expect(() => decodeCursor("eyJ2IjoxfQ", "DESC")).toThrow()
    expect(() => decodeCursor("%%%", "DESC")).toThrow()
  })

  it("moves sub-millisecond bounds inward", () => {
    expect(timeBound("2026-01-01T00:00:00.1231Z", "begin").toISOString()).toBe("2026-01-01T00:00:00.124Z")
    expect(timeBound("2026-01-01T00:00:00.1239Z", "end").toISOString()).toBe("2026-01-01T00:00:00.123Z")
    expect(timeBound("2026-01-01T02:00:00+02:00", "begin").toISOString()).toBe("2026-01-01T00:00:00.000Z")
  })
})

describe("fault decisions", () => {
  const settings = (rules: RuntimeSettings["rules"], version = 1): RuntimeSettings => ({
    seed: 5,
    settle_delay_ms: 0,
    quote_ttl_ms: 30_000,
    rate_limits: false,
    rules,
    orchestration_approval: false,
    deposit_delay_ms: 0,
    webhook_url: null,
    webhook_api_key_header: null,
    webhook_api_key_set: false,
    webhook_api_key: null,
    webhook_since: null,
    version,
  })

  it("adds up latency rules and lets the first other rule decide", () => {
    const injector = new FaultInjector()
    const decision = injector.decide(
      "get",
      settings([
        { operation: "get", fault: "latency", rate: 1, latency_ms: 100 },
        { operation: "get", fault: "error", rate: 1, status: 502 },
        { operation: "get", fault: "latency", rate: 1, latency_ms: 50 },
        { operation: "get", fault: "rate_limit", rate: 1 },
        { operation: "list", fault: "hang", rate: 1 },
      ]),
    )
    expect(decision).toEqual({ latencyMs: 150, outcome: { kind: "error", status: 502 } })
  })

  it("counts requests per operation and starts again when the settings change", () => {
    const injector = new FaultInjector()
    const rules: RuntimeSettings["rules"] = [{ operation: "quotes", fault: "rate_limit", rate: 0.5 }]
    const run = (version: number) => Array.from({ length: 12 }, () => injector.decide("quotes", settings(rules, version)).outcome !== undefined)
    const first = run(1)
    expect(run(2)).toEqual(first)
    expect(first).toContain(true)
    expect(first).toContain(false)
    expect(new FaultInjector().decide("quotes", settings([{ ...rules[0]!, rate: 0 }])).outcome).toBeUndefined()
  })
})
