import { describe, expect, it } from "vitest"
import { conversionListQuerySchema } from "@/lib/schemas/conversion"
import { EMPTY_FILTERS, filterErrors, filterResolver, filtersFromSearch, filtersToSearch, toConversionFilters } from "./filters"

describe("conversion table filters", () => {
  it("turns UTC days into inclusive RFC 3339 bounds the list query accepts", () => {
    const filters = toConversionFilters({
      profile_id: "p-1",
      created_from: "2026-01-01",
      created_to: "2026-01-31",
      updated_from: "",
      updated_to: "2026-02-02",
    })
    expect(filters).toEqual({
      profile_id: "p-1",
      "created_at.begin": "2026-01-01T00:00:00Z",
      "created_at.end": "2026-01-31T23:59:59.999Z",
      "updated_at.end": "2026-02-02T23:59:59.999Z",
    })
    expect(conversionListQuerySchema.safeParse(filters).success).toBe(true)
    expect(toConversionFilters(EMPTY_FILTERS)).toEqual({})
  })

  it("refuses impossible days and a range that ends before it starts, under the field", async () => {
    const options = { fields: {}, shouldUseNativeValidation: undefined }
    const values = { ...EMPTY_FILTERS, created_from: "2026-02-30", updated_from: "2026-03-02", updated_to: "2026-03-01" }
    expect(filterErrors(values)).toEqual({
      created_from: "must be a date like 2026-01-31",
      updated_to: "must be on or after “Updated from”",
    })
    expect(await filterResolver(values, undefined, options)).toMatchObject({ values: {} })
    expect(filterErrors({ ...EMPTY_FILTERS, created_from: "2026-03-01", created_to: "2026-03-01", updated_to: "x" })).toEqual({
      updated_to: "must be a date like 2026-01-31",
    })
    const fine = { ...EMPTY_FILTERS, profile_id: "p-1", created_from: "2026-03-01" }
    expect(await filterResolver(fine, undefined, options)).toEqual({ values: fine, errors: {} })
  })

  it("round-trips through the address bar and drops what it cannot read", () => {
    const values = { ...EMPTY_FILTERS, profile_id: "p-1", created_from: "2026-01-01" }
    expect(filtersToSearch(values)).toBe("?profile_id=p-1&created_from=2026-01-01")
    expect(filtersFromSearch({ profile_id: "p-1", created_from: "2026-01-01" })).toEqual(values)
    expect(filtersFromSearch({ profile_id: "<script>", created_to: "yesterday", updated_from: ["2026-01-02", "x"] })).toEqual({
      ...EMPTY_FILTERS,
      updated_from: "2026-01-02",
    })
    expect(filtersToSearch(EMPTY_FILTERS)).toBe("")
  })
})
