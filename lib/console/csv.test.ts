import { describe, expect, it } from "vitest"
import { allPages, csvField, csvResponse } from "@/lib/console/csv"

describe("CSV export", () => {
  it("quotes what needs quoting and defuses formulas, leaving amounts alone", () => {
    expect(csvField('say "hi", then go')).toBe('"say ""hi"", then go"')
    expect(csvField("=HYPERLINK(1)")).toBe("'=HYPERLINK(1)")
    expect(csvField("-0.5")).toBe("-0.5")
    expect(csvField("12.34000000")).toBe("12.34000000")
    expect(csvField(undefined)).toBe("")
    expect(csvField({ a: "b" })).toBe('"{""a"":""b""}"')
  })

  it("streams every page under one header", async () => {
    const pages = [
      { items: [{ id: "a" }, { id: "b" }], next_page_cursor: "2" },
      { items: [{ id: "c" }], next_page_cursor: "" },
    ]
    const res = csvResponse({
      filename: "x.csv",
      columns: [{ header: "id", value: (r: { id: string }) => r.id }],
      pages: () => allPages((cursor) => Promise.resolve(pages[cursor ? 1 : 0]!)),
    })
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8")
    expect(await res.text()).toBe("id\r\na\r\nb\r\nc\r\n")
  })
})
