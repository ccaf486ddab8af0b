import { describe, expect, it } from "vitest"
import { availableOf, retypedMatches, shortfallOf } from "@/lib/pre-trade"

describe("availableOf and shortfallOf", () => {
  const balances = [
    { asset: "USD", available: "1000.00" },
    { asset: "BTC", available: "0.5" },
  ]
  const short = (asset: string, amount: string) => shortfallOf({ asset, amount }, availableOf(asset, balances))

  it("reports needed vs available only when short, comparing decimals exactly", () => {
    expect(short("USD", "1000.00")).toBeNull()
    expect(short("USD", "1000.01")).toEqual({ asset: "USD", needed: "1000.01", available: "1000.00", short: "0.01" })
    expect(short("BTC", "0.50000001")).toEqual({ asset: "BTC", needed: "0.50000001", available: "0.5", short: "0.00000001" })
  })

  it("counts a missing balance row as 0 once the balances have loaded", () => {
    expect(availableOf("ETH", balances)).toBe("0")
    expect(short("ETH", "1")).toEqual({ asset: "ETH", needed: "1", available: "0", short: "1" })
  })

  it("says nothing while the balances load, or of an amount that is not a number", () => {
    expect(availableOf("USD", undefined)).toBeUndefined()
    expect(shortfallOf({ asset: "USD", amount: "5" }, undefined)).toBeNull()
    expect(shortfallOf({ asset: "USD", amount: "abc" }, "10")).toBeNull()
  })

  it("stays exact past a JS number's precision", () => {
    expect(shortfallOf({ asset: "USD", amount: "9007199254740993.01" }, "9007199254740993.00")?.short).toBe("0.01")
  })
})

describe("retypedMatches", () => {
  it("matches the same amount typed again, with or without separators or trailing zeros", () => {
    expect(retypedMatches("30000", "30000.00")).toBe(true)
    expect(retypedMatches("30,000.00", "30000.00")).toBe(true)
    expect(retypedMatches(" 30000.0 ", "30000")).toBe(true)
  })
  it("refuses another amount or something that is not one", () => {
    expect(retypedMatches("3000", "30000.00")).toBe(false)
    expect(retypedMatches("30000.01", "30000.00")).toBe(false)
    expect(retypedMatches("", "30000.00")).toBe(false)
    expect(retypedMatches("3e4", "30000")).toBe(false)
  })
})
