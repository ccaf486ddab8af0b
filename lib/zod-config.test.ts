import { afterEach, describe, expect, it, vi } from "vitest"

afterEach(() => {
  vi.restoreAllMocks()
})

describe("zod runs jitless (pages' CSP has no 'unsafe-eval')", () => {
  it("zod's own config() reads the setting, and building and parsing object schemas never calls Function", async () => {
    await import("@/lib/zod-config")
    const FunctionSpy = vi.spyOn(globalThis, "Function")
    const { config, z } = await import("zod")
    expect(config().jitless).toBe(true)
    const schema = z.object({ amount: z.string(), nested: z.object({ k: z.number() }) })
    expect(schema.parse({ amount: "1.00", nested: { k: 1 } })).toEqual({ amount: "1.00", nested: { k: 1 } })
    expect(FunctionSpy).not.toHaveBeenCalled()
  })
})
