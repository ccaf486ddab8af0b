import { describe, expect, it } from "vitest"
import { executionSummary } from "@/components/executions/execution-summary"

describe("executionSummary", () => {
  const e = { side: "BUY" as const, status: "SETTLED" as const, base_amount: "0.00150000", base_asset: "BTC", price: "94882.21", quote_amount: "142.33", quote_asset: "USD" }
  it("says what was done in one line, amounts as a trader reads them", () => {
    expect(executionSummary(e)).toBe("Bought 0.00150000 BTC @ 94,882.21 for 142.33 USD")
    expect(executionSummary({ ...e, side: "SELL", base_amount: "12" })).toBe("Sold 12.00000000 BTC @ 94,882.21 for 142.33 USD")
    expect(executionSummary({ ...e, base_amount: "1200.00000000" })).toBe("Bought 1,200.00000000 BTC @ 94,882.21 for 142.33 USD")
  })
  it("does not say bought before it settled", () => {
    expect(executionSummary({ ...e, status: "CREATED" })).toBe("Buying 0.00150000 BTC @ 94,882.21 for 142.33 USD")
    expect(executionSummary({ ...e, side: "SELL", status: "CREATED" })).toBe("Selling 0.00150000 BTC @ 94,882.21 for 142.33 USD")
  })
})
