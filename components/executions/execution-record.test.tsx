import { renderToStaticMarkup } from "react-dom/server"
import { describe, expect, it } from "vitest"
import { ExecutionRecord } from "@/components/executions/execution-record"
import type { QuoteExecution } from "@/lib/schemas/records"

const execution: QuoteExecution = {
  id: "0e0e0e0e-3333-4c4c-9d9d-444444444444",
  profile_id: "profile-1",
  quote_id: "9d2b0b7e-1111-4a4a-8b8b-222222222222",
  ref_id: "ref-1",
  status: "SETTLED",
  market: "BTCUSD",
  side: "BUY",
  price: "97123.456789012345",
  base_amount: "1234.50000000",
  base_asset: "BTC",
  quote_amount: "119898106.68",
  quote_asset: "USD",
  created_at: "2026-01-31T12:00:00.123456Z",
  settled_at: "2026-01-31T12:00:01Z",
  metadata: { desk: "london", "<b>": "x&y" },
  identity_id: "identity-1",
  account_id: "account-1",
  recipient_profile_id: "profile-2",
}

function text(html: string): string {
  return html.replace(/<[^>]+>/g, " ").replace(/\s+/g, " ")
}

describe("ExecutionRecord", () => {
  it("shows every field, amounts exactly as written", () => {
    const html = renderToStaticMarkup(<ExecutionRecord execution={execution} profileName="Treasury" />)
    const shown = text(html)
    for (const value of [
      execution.id,
      execution.profile_id,
      execution.quote_id,
      "ref-1",
      "SETTLED",
      "BTCUSD",
      "BUY",
      "97,123.456789012345",
      "1,234.50000000",
      "119,898,106.68",
      "2026-01-31 12:00:00 UTC",
      "2026-01-31 12:00:01 UTC",
      "desk",
      "london",
      "identity-1",
      "account-1",
      "profile-2",
      "Treasury",
    ]) {
      expect(shown).toContain(value)
    }
    // Metadata is text, never markup.
    expect(html).toContain("&lt;b&gt;")
    expect(html).toContain("x&amp;y")
  })

  it("says when it has not settled yet, and leaves absent fields empty", () => {
    const { settled_at: _s, metadata: _m, identity_id: _i, account_id: _a, recipient_profile_id: _r, ...bare } = execution
    const shown = text(renderToStaticMarkup(<ExecutionRecord execution={{ ...bare, status: "CREATED" }} />))
    expect(shown).toContain("CREATED")
    expect(shown).toContain("Not settled yet")
  })

  it("shows the price with its market's tick decimals when the service's tick_rate is known, else by the size rule", () => {
    const cheap = { ...execution, market: "MATICUSD", base_asset: "MATIC", price: "1.5" }
    const ticked = renderToStaticMarkup(<ExecutionRecord execution={cheap} tick="0.01" />)
    expect(text(ticked)).toContain("1.50 USD per MATIC")
    expect(ticked).toContain('data-tick="0.01"')
    // Without the tick (the prices not in yet): 4 decimals for a price from 1 up.
    expect(text(renderToStaticMarkup(<ExecutionRecord execution={cheap} />))).toContain("1.5000 USD per MATIC")
  })

  it("shows every id whole on one line, as a chip with a copy button", () => {
    const html = renderToStaticMarkup(<ExecutionRecord execution={execution} />)
    // id, profile, quote, ref_id, identity, account, recipient profile
    expect(html.match(/data-testid="id-chip"/g)).toHaveLength(7)
    expect(html).not.toMatch(/<code[^>]*break-all/)
    expect(html).toContain(`aria-label="Copy execution id"`)
  })
})
