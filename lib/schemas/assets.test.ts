import { describe, expect, it } from "vitest"
import { FIAT_ASSETS, SEED_MARKETS, STABLECOINS, assetDecimals, isFiat, parseMarket } from "@/lib/schemas/assets"

describe("assets", () => {
  it("lists the service's markets, fiat currencies and stablecoins", () => {
    expect(SEED_MARKETS).toEqual([
      "ETHEUR",
      "ETHSGD",
      "ETHUSD",
      "BTCEUR",
      "BTCSGD",
      "BTCUSD",
      "PAXGUSD",
      "BCHUSD",
      "LTCUSD",
      "USDPUSD",
      "LINKUSD",
      "MATICUSD",
      "AAVEUSD",
      "UNIUSD",
    ])
    expect(FIAT_ASSETS).toEqual(["USD", "EUR", "SGD"])
    expect(STABLECOINS).toEqual(["USDP", "PYUSD", "USDG"])
  })

  it.each([
    ["MATICUSD", "MATIC", "USD"],
    ["USDPUSD", "USDP", "USD"],
    ["PAXGUSD", "PAXG", "USD"],
    ["BTCSGD", "BTC", "SGD"],
    ["ETHEUR", "ETH", "EUR"],
    ["POLUSD", "POL", "USD"],
    ["PYUSDUSD", "PYUSD", "USD"],
    ["SGDUSD", "SGD", "USD"],
    ["1INCHUSD", "1INCH", "USD"],
  ])("parseMarket(%j) = %s / %s", (market, base, quote) => {
    expect(parseMarket(market)).toEqual({ base, quote })
  })

  it("splits every seed market back into itself", () => {
    for (const market of SEED_MARKETS) {
      const parsed = parseMarket(market)
      expect(parsed).not.toBeNull()
      expect(`${parsed?.base}${parsed?.quote}`).toBe(market)
    }
  })

  it.each(["", "USD", "BTC", "XUSD", "btcusd", "BTC-USD", "BTC/USD", "BTCUSDT", "BTCJPY", " BTCUSD", "BTCUSD ", "ABCDEFGHIJKLMUSD", "BTCUSD\n"])(
    "parseMarket(%j) = null",
    (market) => {
      expect(parseMarket(market)).toBeNull()
    },
  )

  it("tells fiat from crypto and their decimals", () => {
    expect(FIAT_ASSETS.map((asset) => [isFiat(asset), assetDecimals(asset)])).toEqual([
      [true, 2],
      [true, 2],
      [true, 2],
    ])
    expect(["BTC", "ETH", "PAXG", "USDP", "PYUSD", "USDG", "usd", ""].map((asset) => [isFiat(asset), assetDecimals(asset)])).toEqual([
      [false, 8],
      [false, 8],
      [false, 8],
      [false, 8],
      [false, 8],
      [false, 8],
      [false, 8],
      [false, 8],
    ])
  })
})
