import { describe, expect, it } from "vitest"
import { usdPrices } from "@/lib/console/overview"
import type { Quote } from "@/lib/schemas/records"

const quote = (market: string, side: "BUY" | "SELL", price: string): Quote => ({
  id: `${market}-${side}`,
  market,
  side,
  price,
  base_asset: market.slice(0, -3),
  quote_asset: market.slice(-3),
  created_at: "2026-01-01T00:00:00Z",
  expires_at: "2026-01-01T00:00:30Z",
})

describe("USD prices for valuation", () => {
  it("are the mids of the USD markets, exactly in decimals, and 1 for USD", () => {
    const prices = usdPrices([quote("BTCUSD", "BUY", "95095.00"), quote("BTCUSD", "SELL", "94905.01"), quote("USDPUSD", "BUY", "1.0001"), quote("USDPUSD", "SELL", "0.9999")])
    expect(prices.get("BTC")?.toString()).toBe("95000.005")
    expect(prices.get("USDP")?.toString()).toBe("1")
    expect(prices.get("USD")?.toString()).toBe("1")
  })

  it("price EUR and SGD through a crypto quoted in both, and leave out what no quote prices", () => {
    const prices = usdPrices([
      quote("BTCUSD", "BUY", "116"),
      quote("BTCUSD", "SELL", "116"),
      quote("BTCEUR", "BUY", "100"),
      quote("BTCEUR", "SELL", "100"),
      quote("ETHSGD", "BUY", "3"),
      quote("ETHSGD", "SELL", "3"),
    ])
    expect(prices.get("EUR")?.toString()).toBe("1.16")
    // No ETHUSD quote: SGD has no price rather than a wrong one.
    expect(prices.has("SGD")).toBe(false)
    expect(prices.has("ETH")).toBe(false)
  })

  it("ignore a market with only one side quoted", () => {
    expect(usdPrices([quote("LTCUSD", "BUY", "95")]).has("LTC")).toBe(false)
  })
})
