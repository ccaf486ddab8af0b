import { afterEach, describe, expect, it, vi } from "vitest"
import { z } from "zod"
import { ApiNetworkError, ApiProblemError, apiFetch } from "@/lib/queries/api"

function answer(status: number, body: unknown, type = "application/json"): Response {
  return new Response(typeof body === "string" ? body : JSON.stringify(body), { status, headers: { "content-type": type } })
}

afterEach(() => vi.unstubAllGlobals())

describe("apiFetch", () => {
  const schema = z.object({ price: z.string() })

  it("checks the answer with a schema, or with one it loads on demand", async () => {
    vi.stubGlobal("fetch", vi.fn(() => Promise.resolve(answer(200, { price: "1.50", extra: 1 }))))
    await expect(apiFetch("/api/x", { schema })).resolves.toEqual({ price: "1.50" })
    await expect(apiFetch("/api/x", { schema: () => Promise.resolve(schema) })).resolves.toEqual({ price: "1.50" })
    vi.stubGlobal("fetch", vi.fn(() => Promise.resolve(answer(200, { price: 1.5 }))))
    await expect(apiFetch("/api/x", { schema: () => Promise.resolve(schema) })).rejects.toThrow()
  })

  it("turns a problem into ApiProblemError, and a non-problem body into a generic one", async () => {
    vi.stubGlobal(
      "fetch",
      vi.fn(() =>
        Promise.resolve(
          answer(403, { type: "https://developer.paxos.com/docs/v2/problems/expired", title: "Expired", status: 403, meta: { expired_at: "x" } }),
        ),
      ),
    )
    const error = await apiFetch("/api/x").catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ApiProblemError)
    expect((error as ApiProblemError).problem).toMatchObject({ title: "Expired", status: 403, meta: { expired_at: "x" } })

    vi.stubGlobal("fetch", vi.fn(() => Promise.resolve(answer(502, { nothing: true }))))
    const generic = await apiFetch("/api/x").catch((e: unknown) => e)
    expect((generic as ApiProblemError).problem).toEqual({ type: "about:blank", title: "Error", status: 502 })
  })

  it("says the console could not be reached when the request fails", async () => {
    vi.stubGlobal("fetch", vi.fn(() => Promise.reject(new TypeError("fetch failed"))))
    await expect(apiFetch("/api/x")).rejects.toBeInstanceOf(ApiNetworkError)
  })
})
