import { describe, expect, it, vi } from "vitest"
import { HttpProblem } from "@/lib/problem"
import type { Conversion } from "@/lib/schemas/records"
import { UpstreamProblemError, UpstreamUnavailableError } from "@/lib/upstream"
import { createTestDatabase } from "@/test/db"
import { lookupConversion } from "@/lib/console/conversion-lookup"
import { type CreateIntentView, conversionCreateIntent } from "@/lib/console/intents"
import { insertIntentRows } from "@/test/intents"

const record: Conversion = { id: "3b0c7c1e-8a4e-4c59-9a3c-2b0d6f1e2a10", status: "CREATED", ref_id: "ref-1" }
const notFound = new UpstreamProblemError({ type: "about:blank", title: "Not Found", status: 404, detail: "conversion not found" })

function upstreamWith(get: (id?: string) => Promise<Conversion>, items: Conversion[] = []) {
  return {
    getConversion: vi.fn(get),
    listConversions: vi.fn((_query: { ref_id?: string | undefined }) => Promise.resolve({ items })),
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
    expect((error as HttpProblem).problem).toMatchObject({ status: 404, title: "Not Found", code: "not_found" })
    expect((error as HttpProblem).problem.detail).toContain("No conversion has the id or ref_id “nope”")
  })

  it("does not hide an outage behind 'not found'", async () => {
    const outage = new UpstreamUnavailableError("down", { outcome: "rejected", mutating: false })
    const upstream = upstreamWith(() => Promise.reject(outage))
    await expect(lookupConversion(upstream, "x")).rejects.toBe(outage)
    expect(upstream.listConversions).not.toHaveBeenCalled()
  })
})

describe("lookupConversion while a create with that ref_id is in flight", () => {
  it("answers 409 'still being placed' instead of a 404 that a form would take for 'not placed'", async () => {
    const upstream = upstreamWith(() => Promise.reject(notFound), [])
    const inFlight = vi.fn((refId: string): Promise<CreateIntentView | null> =>
      Promise.resolve(refId === "ref-busy" ? { state: "PENDING", recordId: null } : null),
    )
    const error = await lookupConversion(upstream, "ref-busy", inFlight).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(HttpProblem)
    expect((error as HttpProblem).problem).toMatchObject({ status: 409, code: "in_flight", meta: { in_flight: true } })
    expect((error as HttpProblem).problem.detail).toContain("still being placed")
    const idle = await lookupConversion(upstream, "ref-idle", inFlight).catch((e: unknown) => e)
    expect((idle as HttpProblem).problem.status).toBe(404)
  })

  it("reads the intent log before asking the service, so a create settling meanwhile is never a 404", async () => {
    const calls: string[] = []
    let settled = false
    const upstream = {
      getConversion: vi.fn(() => {
        calls.push("service")
        // The create lands and its intent settles while the service is being asked.
        settled = true
        return Promise.reject(notFound)
      }),
      listConversions: vi.fn(() => Promise.resolve({ items: [] as Conversion[] })),
    }
    const inFlight = vi.fn((): Promise<CreateIntentView> => {
      calls.push("intents")
      return Promise.resolve(settled ? { state: "SUCCEEDED", recordId: record.id } : { state: "PENDING", recordId: null })
    })
    const error = await lookupConversion(upstream, "ref-racing", inFlight).catch((e: unknown) => e)
    expect(calls[0]).toBe("intents")
    expect((error as HttpProblem).problem.status).toBe(409)
  })
})

describe("lookupConversion of a ref_id this console placed", () => {
  it("fetches the record the intent names: one call to the service, no guessing by id or list", async () => {
    const upstream = upstreamWith((id?: string) => (id === record.id ? Promise.resolve(record) : Promise.reject(notFound)))
    const intent = vi.fn((refId: string): Promise<CreateIntentView | null> =>
      Promise.resolve(refId === "ref-1" ? { state: "SUCCEEDED", recordId: record.id } : null),
    )
    await expect(lookupConversion(upstream, "ref-1", intent)).resolves.toEqual({ conversion: record, matched_by: "ref_id" })
    expect(upstream.getConversion).toHaveBeenCalledTimes(1)
    expect(upstream.getConversion).toHaveBeenCalledWith(record.id)
    expect(upstream.listConversions).not.toHaveBeenCalled()
  })

  it("fetches it through the conversion API that placed it, when the desk has switched since", async () => {
    const current = upstreamWith(() => Promise.reject(notFound), [])
    const placedVia = { getConversion: vi.fn((id: string) => (id === record.id ? Promise.resolve(record) : Promise.reject(notFound))) }
    const via = vi.fn(() => placedVia)
    const intent = vi.fn((): Promise<CreateIntentView> => Promise.resolve({ state: "SUCCEEDED", recordId: record.id, upstreamApi: "orchestrations" }))
    await expect(lookupConversion(current, "ref-1", intent, via)).resolves.toEqual({ conversion: record, matched_by: "ref_id" })
    expect(via).toHaveBeenCalledWith("orchestrations")
    expect(current.getConversion).not.toHaveBeenCalled()
  })

  it("asks the service when the intent failed (nothing was placed under it)", async () => {
    const upstream = upstreamWith(() => Promise.reject(notFound), [])
    const intent = vi.fn((): Promise<CreateIntentView> => Promise.resolve({ state: "FAILED", recordId: null }))
    const error = await lookupConversion(upstream, "ref-1", intent).catch((e: unknown) => e)
    expect((error as HttpProblem).problem.status).toBe(404)
    expect(upstream.listConversions).toHaveBeenCalled()
  })
})

describe("lookupConversion of a pasted value", () => {
  it("tries it as pasted, then without the spaces around it", async () => {
    const upstream = upstreamWith(() => Promise.reject(notFound), [])
    upstream.listConversions.mockImplementation((query) => Promise.resolve({ items: query.ref_id === "ref-1" ? [record] : [] }))
    await expect(lookupConversion(upstream, "  ref-1\n")).resolves.toEqual({ conversion: record, matched_by: "ref_id" })
    expect(upstream.listConversions.mock.calls.map(([query]) => query.ref_id)).toEqual(["  ref-1\n", "ref-1"])
  })
})

describe("conversionCreateIntent", () => {
  it("finds the create_conversion intent with that ref_id, with its state and record id", async () => {
    const database = await createTestDatabase("pglite")
    try {
      const { db } = database
      const row = (refId: string, operation: "create_conversion" | "create_execution", state: "PENDING" | "SUCCEEDED" | "UNKNOWN") => ({
        staffEmail: "trader@example.com",
        staffRole: "trader",
        operation,
        refId,
        request: {},
        state,
        recordId: state === "SUCCEEDED" ? record.id : null,
        upstreamApi: refId === "ref-done" ? "orchestrations" : null,
      })
      await insertIntentRows(db, [
        row("ref-pending", "create_conversion", "PENDING"),
        row("ref-done", "create_conversion", "SUCCEEDED"),
        row("ref-unknown", "create_conversion", "UNKNOWN"),
        row("ref-trade", "create_execution", "PENDING"),
      ])
      expect(await conversionCreateIntent(db, "ref-pending")).toEqual({ state: "PENDING", recordId: null, upstreamApi: null })
      expect(await conversionCreateIntent(db, "ref-done")).toEqual({ state: "SUCCEEDED", recordId: record.id, upstreamApi: "orchestrations" })
      expect(await conversionCreateIntent(db, "ref-unknown")).toEqual({ state: "UNKNOWN", recordId: null, upstreamApi: null })
      expect(await conversionCreateIntent(db, "ref-trade")).toBeNull()
      expect(await conversionCreateIntent(db, "ref-none")).toBeNull()
    } finally {
      await database.close()
    }
  }, 60_000)
})
