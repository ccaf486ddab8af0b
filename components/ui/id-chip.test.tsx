import { renderToStaticMarkup } from "react-dom/server"
import { describe, expect, it } from "vitest"
import { IdChip } from "@/components/ui/id-chip"

const ID = "fcfad915-3b1c-4c2e-9a55-0123456789ab"

function text(html: string): string {
  return html.replace(/<[^>]+>/g, " ").replace(/\s+/g, " ").trim()
}

describe("IdChip", () => {
  it("shows a long id's first 8 characters on one line, the whole id in its title, its name and the copy button's", () => {
    const html = renderToStaticMarkup(<IdChip value={ID} label="ref_id" />)
    expect(text(html)).toBe("fcfad915… Copy")
    expect(html).toContain(`title="${ID}"`)
    expect(html).toContain(`aria-label="ref_id ${ID}"`)
    expect(html).toContain('aria-label="Copy ref_id"')
    expect(html).toContain("whitespace-nowrap")
    expect(html).not.toContain("break-all")
  })

  it("shows the whole id when asked (a record's page, a review), still on one line", () => {
    const html = renderToStaticMarkup(<IdChip value={ID} label="execution id" testId="record-id" full />)
    expect(text(html)).toBe(`${ID} Copy`)
    expect(html).toContain('data-testid="record-id"')
    expect(html).toContain("truncate")
    expect(html).not.toContain("break-all")
  })

  it("keeps a short id whole, links to the id's page when given one, and shows a dash for none", () => {
    expect(text(renderToStaticMarkup(<IdChip value="ref-1" label="ref_id" />))).toBe("ref-1 Copy")
    const linked = renderToStaticMarkup(<IdChip value={ID} label="conversion id" href="/conversions/x" linkLabel={`Open conversion ${ID}`} />)
    expect(linked).toContain('href="/conversions/x"')
    expect(linked).toContain(`aria-label="Open conversion ${ID}"`)
    expect(text(renderToStaticMarkup(<IdChip value={undefined} label="ref_id" />))).toBe("—")
    expect(text(renderToStaticMarkup(<IdChip value="" label="ref_id" />))).toBe("—")
  })
})
