import { describe, expect, it } from "vitest"
import { atOrOverThreshold, conversionSize, executionSize, limitBreach } from "@/lib/limits"
import { toDecimal } from "@/lib/money"

describe("the policy's rules about one order", () => {
  it("sizes an execution by its fiat side: base × price rounded up to cents, or the quote amount", () => {
    expect(executionSize({ base_amount: "250" }, { market: "BTCUSD", price: "94867.91" })).toMatchObject({ currency: "USD" })
    expect(executionSize({ base_amount: "250" }, { market: "BTCUSD", price: "94867.91" }).amount.toFixed(2)).toBe("23716977.50")
    expect(executionSize({ base_amount: "0.00000001" }, { market: "ETHEUR", price: "1.5" }).amount.toFixed(2)).toBe("0.01")
    expect(executionSize({ quote_amount: "250" }, { market: "BTCSGD", price: "1" })).toMatchObject({ currency: "SGD" })
    expect(conversionSize({ amount: "75" }).amount.toFixed(2)).toBe("75.00")
  })

  it("names the limit an order breaks: per order first, then the day with what is used", () => {
    const limits = { per_order: "50000.00", per_day: "250000.00" }
    const usd = (amount: string) => ({ amount: toDecimal(amount), currency: "USD" })
    expect(limitBreach(limits, usd("50000.00"), toDecimal("0"))).toBeNull()
    expect(limitBreach(limits, usd("50000.01"), toDecimal("0"))?.limit).toBe("per_order")
    expect(limitBreach(limits, usd("100.01"), toDecimal("249900.00"))?.limit).toBe("per_day")
    expect(limitBreach(limits, usd("100.00"), toDecimal("249900.00"))).toBeNull()
    expect(limitBreach(null, usd("999999999999.00"), toDecimal("0"))).toBeNull()
    expect(limitBreach({ per_order: null, per_day: undefined }, usd("999999999999.00"), toDecimal("0"))).toBeNull()
  })

  it("an order at the threshold needs approval, one cent under does not", () => {
    expect(atOrOverThreshold("10000.00", { amount: toDecimal("10000"), currency: "USD" })).toBe(true)
    expect(atOrOverThreshold("10000.00", { amount: toDecimal("9999.99"), currency: "USD" })).toBe(false)
    expect(atOrOverThreshold(null, { amount: toDecimal("999999999999.00"), currency: "USD" })).toBe(false)
  })
})
