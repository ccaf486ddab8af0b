import { describe, expect, it } from "vitest"
import { faultsStatusOf, sandboxDepositRequestSchema } from "@/lib/schemas/sandbox-tools"

function issues(body: unknown): Record<string, string> {
  const result = sandboxDepositRequestSchema.safeParse(body)
  if (result.success) return {}
  return Object.fromEntries(result.error.issues.map((i) => [i.path.join(".") || "body", i.message]))
}

describe("sandbox deposit request", () => {
  it("takes the asset's precision: 2 decimals for fiat, 8 for crypto and stablecoins", () => {
    expect(issues({ profile_id: "p", asset: "USD", amount: "1000.00" })).toEqual({})
    expect(issues({ profile_id: "p", asset: "BTC", amount: "0.12345678" })).toEqual({})
    expect(issues({ profile_id: "p", asset: "USD", amount: "1.001" })).toEqual({ amount: "at most 2 decimals for USD" })
    expect(issues({ profile_id: "p", asset: "ETH", amount: "0.123456789" })).toEqual({ amount: "at most 8 decimals for ETH" })
  })

  it("names each wrong field in plain words", () => {
    expect(issues({ profile_id: "p", asset: "USD", amount: "0" })).toEqual({ amount: "must be more than 0" })
    expect(issues({ profile_id: "p", asset: "USD", amount: "-5" })).toEqual({ amount: "must be more than 0" })
    expect(issues({ profile_id: "p", asset: "USD", amount: "1e5" })).toEqual({ amount: "must be a number like 12.34 (digits and at most one dot)" })
    expect(issues({ profile_id: "p", asset: "USD", amount: "" })).toEqual({ amount: "is required" })
    expect(issues({ profile_id: "p", asset: "USD", amount: "1000000000.01" })).toEqual({ amount: "at most 1000000000" })
    expect(issues({ profile_id: "p", asset: "DOGE", amount: "1" })).toHaveProperty("asset")
    expect(issues({ asset: "USD", amount: "1" })).toEqual({ profile_id: "is required" })
    expect(issues({ profile_id: "p", asset: "USD", amount: 5 })).toHaveProperty("amount")
    expect(issues({ profile_id: "p", asset: "USD", amount: "1", extra: true })).toHaveProperty("body")
  })
})

describe("faultsStatusOf", () => {
  it("counts the rules that can fire and the operations they touch", () => {
    expect(faultsStatusOf({ rules: [] })).toEqual({ faults_active: false, active_rules: 0, operations: [] })
    expect(
      faultsStatusOf({
        rules: [
          { operation: "quotes", rate: 0 },
          { operation: "create_execution", rate: 1 },
          { operation: "create_execution", rate: 0.5 },
        ],
      }),
    ).toEqual({ faults_active: true, active_rules: 2, operations: ["create_execution"] })
  })
})
