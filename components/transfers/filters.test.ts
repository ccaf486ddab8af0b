import { describe, expect, it } from "vitest"
import { transferListQuerySchema } from "@/lib/schemas/transfer"
import {
  EMPTY_TRANSFER_FILTERS,
  toTransferFilters,
  transferFilterErrors,
  transferFiltersFromSearch,
  transferFiltersToSearch,
} from "./filters"

describe("transfer table filters", () => {
  it("turn the form into a query GET /api/transfers accepts, days as inclusive UTC bounds", () => {
    const filters = toTransferFilters({ profile_id: "p-1", type: "WIRE_DEPOSIT", status: "COMPLETED", created_from: "2026-01-01", created_to: "2026-01-31" })
    expect(filters).toEqual({
      profile_id: "p-1",
      type: "WIRE_DEPOSIT",
      status: "COMPLETED",
      "created_at.begin": "2026-01-01T00:00:00Z",
      "created_at.end": "2026-01-31T23:59:59.999Z",
    })
    expect(transferListQuerySchema.safeParse(filters).success).toBe(true)
    expect(toTransferFilters(EMPTY_TRANSFER_FILTERS)).toEqual({})
  })

  it("survive a reload: the address bar gives back what was applied, unreadable values left out", () => {
    const values = { profile_id: "p-1", type: "CRYPTO_DEPOSIT", status: "PENDING", created_from: "2026-02-01", created_to: "" }
    const search = transferFiltersToSearch(values)
    expect(search).toBe("?profile_id=p-1&type=CRYPTO_DEPOSIT&status=PENDING&created_from=2026-02-01")
    expect(transferFiltersFromSearch(Object.fromEntries(new URLSearchParams(search)))).toEqual(values)
    expect(transferFiltersFromSearch({ type: "GIFT", status: "done", created_from: "2026-02-30", profile_id: "<script>" })).toEqual(EMPTY_TRANSFER_FILTERS)
  })

  it("refuse impossible days and a range that ends before it starts", () => {
    expect(transferFilterErrors({ ...EMPTY_TRANSFER_FILTERS, created_from: "2026-03-02", created_to: "2026-03-01" })).toEqual({
      created_to: "must be on or after “Created from”",
    })
    expect(transferFilterErrors({ ...EMPTY_TRANSFER_FILTERS, created_from: "yesterday" })).toEqual({ created_from: "must be a date like 2026-01-31" })
  })
})
