import { describe, expect, it } from "vitest"
import { CONVERSION_DECIMALS, csvAmount, csvPrice, formatAmount, formatAxisPrice, formatCount, formatPercent, formatPolicyValue, formatPrice, formatUsd, normaliseAmountInput, tickDecimals } from "@/lib/format"

describe("formatAmount: separators and the asset's fixed decimals", () => {
  it.each<[string, string, string]>([
    ["2487371.39", "USD", "2,487,371.39"],
    ["12000", "USD", "12,000.00"],
    ["75", "USDP", "75.00000000"],
    ["639.999", "ETH", "639.99900000"],
    ["0.00100000", "ETH", "0.00100000"],
    ["1200.5", "EUR", "1,200.50"],
    ["-1234.5", "SGD", "-1,234.50"],
    ["-0", "USD", "0.00"],
    ["99999999999", "USD", "99,999,999,999.00"],
  ])("%s %s → %s", (value, asset, expected) => {
    expect(formatAmount(value, asset)).toBe(expected)
  })

  it("never rounds a digit away: more decimals than the asset allows are all shown", () => {
    expect(formatAmount("1.005", "USD")).toBe("1.005")
    expect(formatAmount("0.000000001", "BTC")).toBe("0.000000001")
  })

  it("keeps the written decimals when the asset is not known, and returns what is not a decimal unchanged", () => {
    expect(formatAmount("1234.50", null)).toBe("1,234.50")
    expect(formatAmount("abc", "USD")).toBe("abc")
    expect(formatAmount(undefined, "USD")).toBe("—")
    expect(formatUsd("23716977.5")).toBe("23,716,977.50")
  })
})

describe("formatPrice: the market's tick decimals by size", () => {
  it.each<[string, string]>([
    ["122988.3", "122,988.30"],
    ["97454.297", "97,454.297"],
    ["95000.0000", "95,000.00"],
    ["2780.74", "2,780.74"],
    ["14.5", "14.5000"],
    ["1", "1.0000"],
    ["0.22000000", "0.220000"],
    ["0.2212345", "0.2212345"],
  ])("%s → %s", (value, expected) => {
    expect(formatPrice(value)).toBe(expected)
  })

  it("rounds a derived price (average, mid) to the tick, half-even", () => {
    expect(formatPrice("97454.297", { round: true })).toBe("97,454.30")
    expect(formatPrice("0.2212345", { round: true })).toBe("0.221234")
  })

  it("a spread or an axis value takes its market price's decimals", () => {
    expect(formatPrice("190.05", { like: "95123.45" })).toBe("190.05")
    expect(formatPrice("0.0007", { like: "0.2211" })).toBe("0.000700")
    expect(formatAxisPrice(97454.297, "97000.12")).toBe("97,454.30")
    expect(formatAxisPrice(Number.NaN, "1")).toBe("—")
  })
})

describe("formatPrice: the decimals of the service's tick_rate where the market is known", () => {
  it("reads the decimals off the tick", () => {
    expect(tickDecimals("0.01")).toBe(2)
    expect(tickDecimals("0.000001")).toBe(6)
    expect(tickDecimals("0.0001")).toBe(4)
    expect(tickDecimals("1")).toBe(0)
    expect(tickDecimals("0.25")).toBe(2)
  })

  it("has none for a missing or nonsensical tick", () => {
    expect(tickDecimals(undefined)).toBeNull()
    expect(tickDecimals(null)).toBeNull()
    expect(tickDecimals("0")).toBeNull()
    expect(tickDecimals("-0.01")).toBeNull()
    expect(tickDecimals("cheap")).toBeNull()
  })

  it("the tick wins over the size rule: a 0.001 tick shows 3 decimals on a large price, a 0.01 tick 2 on a small one", () => {
    expect(formatPrice("97454.297", { tick: "0.001" })).toBe("97,454.297")
    expect(formatPrice("97454.2", { tick: "0.001" })).toBe("97,454.200")
    expect(formatPrice("14.5", { tick: "0.01" })).toBe("14.50")
    expect(formatPrice("2780.7", { tick: "0.01", like: "0.5" })).toBe("2,780.70")
  })

  it("a held price is still never rounded; a derived one is rounded to the tick", () => {
    expect(formatPrice("14.505", { tick: "0.01" })).toBe("14.505")
    expect(formatPrice("14.505", { tick: "0.01", round: true })).toBe("14.50")
    expect(formatAxisPrice(14.5051, "14", "0.01")).toBe("14.51")
  })

  it("falls back to the size rule when the market's tick is not known", () => {
    expect(formatPrice("14.5", { tick: undefined })).toBe("14.5000")
    expect(formatPrice("0.0007", { tick: null, like: "0.2211" })).toBe("0.000700")
  })

  it("an explicit number of decimals still wins", () => {
    expect(formatPrice("14.5", { tick: "0.01", decimals: 4 })).toBe("14.5000")
  })
})

describe("percentages and counts", () => {
  it("has 2 decimals, signed on request", () => {
    expect(formatPercent("0.03", { signed: true })).toBe("+0.03")
    expect(formatPercent("-0.25", { signed: true })).toBe("-0.25")
    expect(formatPercent("0.001", { signed: true })).toBe("0.00")
    expect(formatPercent("41.26", { places: 1 })).toBe("41.3")
    expect(formatCount(12345)).toBe("12,345")
  })
})

describe("CSV: plain decimals, fixed per asset, no separators", () => {
  it("pads amounts to the asset's decimals and keeps prices plain", () => {
    expect(csvAmount("75", "USDP")).toBe("75.00000000")
    expect(csvAmount("75", "USDP", CONVERSION_DECIMALS)).toBe("75.00")
    expect(formatAmount("1234", "USDP", CONVERSION_DECIMALS)).toBe("1,234.00")
    expect(csvAmount("12000", "USD")).toBe("12000.00")
    expect(csvAmount("0.001", "ETH")).toBe("0.00100000")
    expect(csvAmount(undefined, "USD")).toBe("")
    expect(csvPrice("95000.12")).toBe("95000.12")
    expect(csvPrice("95000")).toBe("95000.00")
  })
})

describe("normaliseAmountInput: what a person pastes", () => {
  it.each<[string, string]>([
    ["2,487,371.39", "2487371.39"],
    [" 1,000 ", "1000"],
    ["1,000.", "1000."],
    ["12.5", "12.5"],
    // Not thousands separators: left for the field's rule to refuse.
    ["1,5", "1,5"],
    ["12,34,567", "12,34,567"],
    ["1,0000", "1,0000"],
  ])("%j → %j", (value, expected) => {
    expect(normaliseAmountInput(value)).toBe(expected)
  })
})

describe("formatPolicyValue (a policy diff's values)", () => {
  it("an amount in its currency with separators and two decimals, wherever the path puts it", () => {
    expect(formatPolicyValue("role_limits.trader.per_order.USD", "50000.00")).toBe("50,000.00")
    expect(formatPolicyValue("role_limits.trader.per_order.USD", "40000")).toBe("40,000.00")
    expect(formatPolicyValue("approval_thresholds.execution.EUR", "9000.5")).toBe("9,000.50")
    expect(formatPolicyValue("approval_tiers.0.at_or_over.SGD", "1300000.00")).toBe("1,300,000.00")
    // A staff member's email has dots: the currency is the path's last part.
    expect(formatPolicyValue("staff_limits.desk.ops@example.com.per_day.USD", "1234567.89")).toBe("1,234,567.89")
  })

  it("the tolerance as a percentage as written, the lifetime in minutes, approvers as a count, roles as listed, unset as such", () => {
    expect(formatPolicyValue("price_tolerance_percent", "0.5")).toBe("0.5 %")
    expect(formatPolicyValue("price_tolerance_percent", "0.125")).toBe("0.125 %")
    expect(formatPolicyValue("request_ttl_minutes", "1440")).toBe("1,440 minutes")
    expect(formatPolicyValue("request_ttl_minutes", "1")).toBe("1 minute")
    expect(formatPolicyValue("approval_tiers.1.approvers", "2")).toBe("2")
    expect(formatPolicyValue("approval_tiers.1.roles", "trader, admin")).toBe("trader, admin")
    expect(formatPolicyValue("step_up_over.USD", null)).toBe("not set")
  })
})
