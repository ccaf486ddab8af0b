import { describe, expect, it } from "vitest"
import { filtersFromSearch } from "@/components/audit/filters-schema"
import { dayBoundary, recordHref, requestAmounts } from "@/components/audit/format"

describe("requestAmounts", () => {
  it("shows an execution's base or quote amount, named by field (the request names the quote only by id)", () => {
    expect(requestAmounts({ operation: "create_execution", request: { quote_id: "q", base_amount: "0.001" } })).toEqual([
      { field: "base_amount", value: "0.001", label: "base (crypto)" },
    ])
    expect(requestAmounts({ operation: "create_execution", request: { quote_id: "q", quote_amount: "25.00" } })).toEqual([
      { field: "quote_amount", value: "25.00", label: "quote (fiat)" },
    ])
  })

  it("shows a conversion's amount with its source and target assets", () => {
    expect(
      requestAmounts({ operation: "create_conversion", request: { amount: "2.50", source_asset: "USD", target_asset: "PYUSD" } }),
    ).toEqual([{ field: "amount", value: "2.50", asset: "USD", label: "to PYUSD" }])
  })

  it("shows nothing for a cancel, and ignores amounts that are not strings", () => {
    expect(requestAmounts({ operation: "cancel_conversion", request: { id: "c1" } })).toEqual([])
    expect(requestAmounts({ operation: "create_execution", request: { base_amount: 1 } })).toEqual([])
  })
})

describe("recordHref", () => {
  it("links executions under their profile and conversions by id, escaping both", () => {
    expect(recordHref({ operation: "create_execution", record_id: "e 1", profile_id: "p/1", request: {} })).toBe("/executions/p%2F1/e%201")
    expect(recordHref({ operation: "create_execution", record_id: "e1", profile_id: null, request: { profile_id: "p2" } })).toBe(
      "/executions/p2/e1",
    )
    expect(recordHref({ operation: "create_conversion", record_id: "c1", profile_id: "p", request: {} })).toBe("/conversions/c1")
    expect(recordHref({ operation: "cancel_conversion", record_id: "c1", profile_id: null, request: {} })).toBe("/conversions/c1")
  })

  it("has no link without a record", () => {
    expect(recordHref({ operation: "create_execution", record_id: null, profile_id: "p", request: {} })).toBeNull()
  })
})

describe("dayBoundary", () => {
  it("turns a day into the first and last instant of that UTC day, whatever the browser's zone", () => {
    expect(dayBoundary("2026-03-01", "start")).toBe("2026-03-01T00:00:00.000Z")
    expect(dayBoundary("2026-03-01", "end")).toBe("2026-03-01T23:59:59.999Z")
  })

  it("refuses what is not a day", () => {
    expect(dayBoundary("2026-3-1", "start")).toBeUndefined()
    expect(dayBoundary("", "end")).toBeUndefined()
    expect(dayBoundary("2026-02-30", "start")).toBeUndefined()
  })
})


describe("filtersFromSearch", () => {
  it("keeps the valid filters of the address and drops the rest", () => {
    expect(filtersFromSearch({ state: "FAILED", operation: "nope", staff: "Trader@example.com", from: "2026-01-02", to: "2026-01-01" })).toEqual({
      staff: "Trader@example.com",
      operation: "",
      state: "FAILED",
      from: "2026-01-02",
      to: "",
    })
    expect(filtersFromSearch({ state: ["FAILED", "PENDING"] })).toEqual({ staff: "", operation: "", state: "", from: "", to: "" })
  })
})
