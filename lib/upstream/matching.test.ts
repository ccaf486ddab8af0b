import { describe, expect, it } from "vitest"
import type { Conversion, QuoteExecution } from "@/lib/schemas/records"
import { isSameConversion, isSameQuoteExecution } from "@/lib/upstream/matching"

const execution: QuoteExecution = {
  id: "e1",
  profile_id: "p1",
  quote_id: "q1",
  ref_id: "r1",
  status: "CREATED",
  market: "BTCUSD",
  side: "BUY",
  price: "6001.2",
  base_amount: "0.01666333",
  base_asset: "BTC",
  quote_amount: "100.00",
  quote_asset: "USD",
  created_at: "2026-01-01T00:00:00Z",
}

const conversion: Conversion = {
  id: "c1",
  profile_id: "p1",
  amount: "250.00",
  source_asset: "USD",
  target_asset: "USDP",
  status: "SETTLED",
  ref_id: "r1",
}

describe("isSameQuoteExecution", () => {
  it.each([
    ["same quote and quote_amount by value", "p1", { quote_id: "q1", ref_id: "r1", quote_amount: "100" }, true],
    ["same quote and base_amount by value", "p1", { quote_id: "q1", ref_id: "r1", base_amount: "0.016663330" }, true],
    ["another profile", "p2", { quote_id: "q1", ref_id: "r1", quote_amount: "100" }, false],
    ["another quote", "p1", { quote_id: "q2", ref_id: "r1", quote_amount: "100" }, false],
    ["another amount", "p1", { quote_id: "q1", ref_id: "r1", quote_amount: "100.01" }, false],
    ["the amount on the other side", "p1", { quote_id: "q1", ref_id: "r1", base_amount: "100" }, false],
    ["another ref_id", "p1", { quote_id: "q1", ref_id: "r2", quote_amount: "100" }, false],
    ["no amount at all", "p1", { quote_id: "q1", ref_id: "r1" }, false],
  ])("%s → %s", (_, profileId, body, expected) => {
    expect(isSameQuoteExecution(profileId, body, execution)).toBe(expected)
  })
})

describe("isSameConversion", () => {
  const body = { profile_id: "p1", amount: "250", source_asset: "USD", target_asset: "USDP", ref_id: "r1" } as const
  it.each<[string, Partial<Conversion>, boolean]>([
    ["the same request (amount by value)", {}, true],
    ["another profile", { profile_id: "p2" }, false],
    ["another source asset", { source_asset: "PYUSD", target_asset: "USD" }, false],
    ["another target asset", { target_asset: "PYUSD" }, false],
    ["another amount", { amount: "250.01" }, false],
    ["a record without the fields to compare", { profile_id: undefined, amount: undefined }, false],
  ])("%s → %s", (_, change, expected) => {
    expect(isSameConversion(body, { ...conversion, ...change })).toBe(expected)
  })
})
