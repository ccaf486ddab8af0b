import { describe, expect, it } from "vitest"
import { withinOrNull } from "@/lib/within"

describe("withinOrNull", () => {
  it("gives the answer that comes in time", async () => {
    expect(await withinOrNull(() => Promise.resolve(42), 1000, "t.failed")).toBe(42)
  })
  it("gives null when the answer is late, and null (never a throw) when the work fails", async () => {
    const late = new Promise<number>((resolve) => setTimeout(() => resolve(1), 200))
    expect(await withinOrNull(() => late, 20, "t.failed")).toBeNull()
    expect(await withinOrNull(() => Promise.reject(new Error("boom")), 1000, "t.failed")).toBeNull()
  })
})
