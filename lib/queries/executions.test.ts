import { describe, expect, it, vi } from "vitest"
import { ApiNetworkError, ApiProblemError } from "@/lib/queries/api"
import { lookupExecutionSubmission } from "@/lib/queries/executions"
import type { QuoteExecution, QuoteExecutionPage } from "@/lib/schemas/records"

const REF = "0b6c4a52-3d8e-4f4e-9d55-0a1c2b3d4e5f"
/** The console's intent log has no intent for the ref_id: it cannot tell. */
const noIntent = () =>
  Promise.reject(new ApiProblemError({ type: "about:blank", title: "Not Found", status: 404, detail: "no intent", meta: { placed: "unknown" } }))
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
    const answer = await lookupExecutionSubmission("p1", REF, new Date("2026-01-31T12:00:00Z"), list, noIntent)
    expect(answer).toEqual({ placed: true, record: execution("e2", REF) })
    const [first, second] = list.mock.calls.map(([url]) => new URL(url, "http://x"))
    expect(first?.pathname).toBe("/api/profiles/p1/quote-executions")
    expect(first?.searchParams.get("created_at.begin")).toBe("2026-01-31T11:50:00.000Z")
    expect(second?.searchParams.get("page_cursor")).toBe("c2")
  })

  it("never says 'not placed': not listed may still be on its way, and a failed read tells nothing", async () => {
    const empty = await lookupExecutionSubmission("p1", REF, new Date(), () => Promise.resolve({ items: [], next_page_cursor: "" }), noIntent)
    expect(empty.placed).toBe("unknown")
    const offline = new ApiNetworkError(new TypeError("offline"))
    await expect(lookupExecutionSubmission("p1", REF, new Date(), () => Promise.reject(offline), noIntent)).resolves.toEqual({ placed: "unknown", error: offline })
  })

  it("asks the console's intent log first: its record, or 'not placed' when the service refused it; in flight stays unknown", async () => {
    const list = vi.fn((_url: string) => Promise.resolve({ items: [], next_page_cursor: "" }))
    const placed = await lookupExecutionSubmission("p1", REF, new Date(), list, () => Promise.resolve(execution("e9", REF)))
    expect(placed).toEqual({ placed: true, record: execution("e9", REF) })
    const refused = new ApiProblemError({ type: "about:blank", title: "Not Found", status: 404, detail: "refused", meta: { placed: false } })
    await expect(lookupExecutionSubmission("p1", REF, new Date(), list, () => Promise.reject(refused))).resolves.toEqual({ placed: false })
    const inFlight = new ApiProblemError({ type: "about:blank", title: "Conflict", status: 409, detail: "on its way", meta: { in_flight: true } })
    await expect(lookupExecutionSubmission("p1", REF, new Date(), list, () => Promise.reject(inFlight))).resolves.toEqual({ placed: "unknown", error: inFlight })
    // Neither asked the service's list: the intent log's answer was enough.
    expect(list).not.toHaveBeenCalled()
  })

  it("says 'not placed' when the console has no intent and the service lists nothing, 30 s after it was sent", async () => {
    const empty = () => Promise.resolve({ items: [], next_page_cursor: "" })
    const sentAt = new Date("2026-01-31T12:00:00Z")
    const at = (ms: number) => () => sentAt.getTime() + ms
    expect((await lookupExecutionSubmission("p1", REF, sentAt, empty, noIntent, at(29_999))).placed).toBe("unknown")
    expect(await lookupExecutionSubmission("p1", REF, sentAt, empty, noIntent, at(30_000))).toEqual({ placed: false })
    // An intent still on its way is never "not placed", however long ago it was sent.
    const inFlight = () => Promise.reject(new ApiProblemError({ type: "about:blank", title: "Conflict", status: 409, detail: "on its way", meta: { in_flight: true } }))
    expect((await lookupExecutionSubmission("p1", REF, sentAt, empty, inFlight, at(600_000))).placed).toBe("unknown")
  })
})
