import { describe, expect, it } from "vitest"
import { filtersFromForm, filtersFromQuery, noFilters } from "@/components/executions/filters"

describe("filtersFromQuery", () => {
  it("keeps only values the service takes", () => {
    expect(
      filtersFromQuery({
        market: "BTCUSD",
        side: "SELL",
        status: "SETTLED",
        "created_at.begin": "2026-01-31T12:00:00Z",
        "created_at.end": "2026-01-31T13:00:00.999Z",
        page_cursor: "x",
      }),
    ).toEqual({
      market: "BTCUSD",
      side: "SELL",
      status: "SETTLED",
      "created_at.begin": "2026-01-31T12:00:00Z",
      "created_at.end": "2026-01-31T13:00:00.999Z",
    })
    expect(filtersFromQuery({ market: "btc usd", side: "HOLD", status: ["CREATED", "SETTLED"], "created_at.begin": "today" })).toEqual({
      status: "CREATED",
    })
  })
})

describe("filtersFromForm", () => {
  const empty = { market: "", side: "", status: "", from: "", to: "" }
  it("turns the form into the service's filters", () => {
    const result = filtersFromForm({ ...empty, market: "ETHUSD", side: "BUY", from: "2026-01-31T12:00", to: "2026-01-31T12:30" })
    expect(result.ok).toBe(true)
    if (result.ok) {
      expect(result.filters.market).toBe("ETHUSD")
      expect(result.filters.side).toBe("BUY")
      expect(result.filters["created_at.begin"]).toMatch(/Z$/)
      expect(Date.parse(result.filters["created_at.end"]!) - Date.parse(result.filters["created_at.begin"]!)).toBe(30 * 60_000 + 59_999)
    }
    expect(filtersFromForm(empty)).toEqual({ ok: true, filters: {} })
  })
  it("says what is wrong in plain words", () => {
    expect(filtersFromForm({ ...empty, from: "2026-01-31T13:00", to: "2026-01-31T12:00" })).toEqual({
      ok: false,
      errors: { to: "Created to must not be before created from." },
    })
    expect(filtersFromForm({ ...empty, market: "x" })).toEqual({ ok: false, errors: { market: "Market must be like BTCUSD." } })
  })
})

describe("noFilters", () => {
  it("is true only without any filter", () => {
    expect(noFilters({})).toBe(true)
    expect(noFilters({ side: "BUY" })).toBe(false)
  })
})
