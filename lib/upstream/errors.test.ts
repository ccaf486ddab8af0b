import { describe, expect, it, vi } from "vitest"

// The production build loads lib/upstream twice (instrumentation.ts's copy builds the
// runtime; route handlers import their own): errors must be recognised across copies.
describe("upstream errors across two copies of the module", () => {
  it("instanceof and isUpstreamError hold for an error made by the other copy, per class", async () => {
    const a = await import("@/lib/upstream/errors")
    vi.resetModules()
    const b = await import("@/lib/upstream/errors")
    expect(a.UpstreamProblemError).not.toBe(b.UpstreamProblemError)

    const problem = new a.UpstreamProblemError({ type: "about:blank", title: "Bad Request", status: 400 })
    expect(problem instanceof b.UpstreamProblemError).toBe(true)
    expect(problem instanceof b.UpstreamError).toBe(true)
    expect(b.isUpstreamError(problem)).toBe(true)
    expect(problem instanceof b.UpstreamConflictError).toBe(false)
    expect(problem instanceof b.UpstreamTimeoutError).toBe(false)

    const timeout = new a.UpstreamTimeoutError(100, { outcome: "unknown" })
    expect(timeout instanceof b.UpstreamTimeoutError).toBe(true)
    expect(timeout instanceof b.UpstreamProblemError).toBe(false)
    expect(new a.RateLimitedError(3) instanceof b.RateLimitedError).toBe(true)
    expect(new a.UpstreamUnavailableError("down", { outcome: "unknown" }) instanceof b.UpstreamUnavailableError).toBe(true)

    expect(new Error("x") instanceof b.UpstreamError).toBe(false)
    expect(b.isUpstreamError({ name: "UpstreamProblemError" })).toBe(false)
    expect(b.isUpstreamError(null)).toBe(false)
  })

  it("the other copy maps the error to the same problem", async () => {
    const a = await import("@/lib/upstream/errors")
    vi.resetModules()
    const { upstreamErrorToProblem } = await import("@/lib/upstream/problem")
    const expired = new a.UpstreamProblemError({
      type: "https://developer.paxos.com/docs/v2/problems/expired",
      title: "Expired",
      status: 403,
      detail: "quote expired",
    })
    expect(upstreamErrorToProblem(expired).problem).toMatchObject({ status: 403, title: "Expired" })
    expect(upstreamErrorToProblem(new a.UpstreamUnavailableError("down", { outcome: "unknown", mutating: true })).problem).toMatchObject({
      status: 502,
      title: "Bad Gateway",
    })
  })
})
