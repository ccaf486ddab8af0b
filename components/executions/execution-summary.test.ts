import { describe, expect, it } from "vitest"
import { executionSummary } from "@/components/executions/execution-summary"

const settled = { side: "BUY", status: "SETTLED", base_amount: "100", base_asset: "MATIC", price: "1.5", quote_amount: "150.00", quote_asset: "USD" } as const

describe("executionSummary", () => {
  it("writes the price with its market's tick decimals when given, else by the size rule", () => {
    expect(executionSummary(settled, "0.01")).toBe("Bought 100.00000000 MATIC @ 1.50 for 150.00 USD")
    expect(executionSummary(settled)).toBe("Bought 100.00000000 MATIC @ 1.5000 for 150.00 USD")
  })
})
