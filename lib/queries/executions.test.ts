import { describe, expect, it, vi } from "vitest"
import { ApiNetworkError } from "@/lib/queries/api"
import { lookupExecutionSubmission } from "@/lib/queries/executions"
import type { QuoteExecution, QuoteExecutionPage } from "@/lib/schemas/records"

const REF = "0b6c4a52-3d8e-4f4e-9d55-0a1c2b3d4e5f"
const execution = (id: string, refId: string): QuoteExecution => ({
  id,
  profile_id: "p1",
  quote_id: "q1",
  ref_id: refId,
  status: "CREATED",
  market: "BTCUSD",
  side: "BUY",
  price: "1",
  base_amount: "1",
  base_asset: "BTC",
  quote_amount: "1",
  quote_asset: "USD",
  created_at: "2026-01-31T12:00:00Z",
})

describe("lookupExecutionSubmission (what became of an execution whose answer was lost)", () => {
  it("reads the profile's executions since shortly before the send, page by page, and finds the ref_id", async () => {
    const pages: QuoteExecutionPage[] = [
      { items: [execution("e1", "other")], next_page_cursor: "c2" },
      { items: [execution("e2", REF)], next_page_cursor: "" },
    ]
    const list = vi.fn((_url: string) => Promise.resolve(pages.shift()!))
    const answer = await lookupExecutionSubmission("p1", REF, new Date("2026-01-31T12:00:00Z"), list)
    expect(answer).toEqual({ placed: true, record: execution("e2", REF) })
    const [first, second] = list.mock.calls.map(([url]) => new URL(url, "http://x"))
    expect(first?.pathname).toBe("/api/profiles/p1/quote-executions")
    expect(first?.searchParams.get("created_at.begin")).toBe("2026-01-31T11:50:00.000Z")
    expect(second?.searchParams.get("page_cursor")).toBe("c2")
  })

  it("never says 'not placed': not listed may still be on its way, and a failed read tells nothing", async () => {
    const empty = await lookupExecutionSubmission("p1", REF, new Date(), () => Promise.resolve({ items: [], next_page_cursor: "" }))
    expect(empty.placed).toBe("unknown")
    const offline = new ApiNetworkError(new TypeError("offline"))
    await expect(lookupExecutionSubmission("p1", REF, new Date(), () => Promise.reject(offline))).resolves.toEqual({ placed: "unknown", error: offline })
  })
})
