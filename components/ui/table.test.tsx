import { renderToStaticMarkup } from "react-dom/server"
import { describe, expect, it } from "vitest"
import { Table, TableBody, TableHead, Td, Th, Tr } from "@/components/ui/table"

describe("Table", () => {
  it("scrolls sideways in its own positioned box, which holds the screen-reader-only text", () => {
    const html = renderToStaticMarkup(
      <Table caption="Conversions, newest first" testId="t">
        <TableHead>
          <Th>Pair</Th>
          <Th align="right">Amount</Th>
        </TableHead>
        <TableBody>
          <Tr data-testid="row" data-id="c1">
            <Td>
              USD <span className="sr-only">to</span> USDP
            </Td>
            <Td align="right">1.00</Td>
          </Tr>
        </TableBody>
      </Table>,
    )
    const box = /^<div class="([^"]+)">/.exec(html)?.[1]?.split(" ") ?? []
    expect(box).toEqual(expect.arrayContaining(["relative", "overflow-x-auto"]))
    expect(html.endsWith("</table></div>")).toBe(true)
    expect(html).toContain('<caption class="sr-only">Conversions, newest first</caption>')
    expect(html).toContain('<th scope="col" class="font-semibold text-right">Amount</th>')
    expect(html).toContain('data-testid="row" data-id="c1"')
  })
})
