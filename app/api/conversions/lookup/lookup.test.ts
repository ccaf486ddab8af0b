import { describe, expect, it, vi } from "vitest"
import { HttpProblem } from "@/lib/console/problem"
import type { Conversion } from "@/lib/schemas/records"
import { UpstreamProblemError, UpstreamUnavailableError } from "@/lib/upstream"
import { lookupConversion } from "./lookup"

const record: Conversion = { id: "3b0c7c1e-8a4e-4c59-9a3c-2b0d6f1e2a10", status: "CREATED", ref_id: "ref-1" }
const notFound = new UpstreamProblemError({ type: "about:blank", title: "Not Found", status: 404, detail: "conversion not found" })

function upstreamWith(get: () => Promise<Conversion>, items: Conversion[] = []) {
  return {
    getConversion: vi.fn(get),
    listConversions: vi.fn(() => Promise.resolve({ items })),
  }
}

describe("lookupConversion", () => {
  it("finds by id first, without listing", async () => {
    const upstream = upstreamWith(() => Promise.resolve(record))
    await expect(lookupConversion(upstream, record.id)).resolves.toEqual({ conversion: record, matched_by: "id" })
    expect(upstream.listConversions).not.toHaveBeenCalled()
  })

  it("falls back to the ref_id when the id is unknown", async () => {
    const upstream = upstreamWith(() => Promise.reject(notFound), [record])
    await expect(lookupConversion(upstream, "ref-1")).resolves.toEqual({ conversion: record, matched_by: "ref_id" })
    expect(upstream.listConversions).toHaveBeenCalledWith({ ref_id: "ref-1", limit: 1 })
  })

  it("says plainly when neither matches (404 naming what was looked for)", async () => {
    const upstream = upstreamWith(() => Promise.reject(notFound), [])
    const error = await lookupConversion(upstream, "nope").catch((e: unknown) => e)
    expect(error).toBeInstanceOf(HttpProblem)
    expect((error as HttpProblem).problem).toMatchObject({ status: 404, title: "Not Found" })
    expect((error as HttpProblem).problem.detail).toContain("No conversion has the id or ref_id “nope”")
  })

  it("does not hide an outage behind 'not found'", async () => {
    const outage = new UpstreamUnavailableError("down", { outcome: "rejected", mutating: false })
    const upstream = upstreamWith(() => Promise.reject(outage))
    await expect(lookupConversion(upstream, "x")).rejects.toBe(outage)
    expect(upstream.listConversions).not.toHaveBeenCalled()
  })
})
