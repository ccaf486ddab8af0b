import { randomUUID } from "node:crypto"
import { describe, expect, it } from "vitest"
import { expiryOfQuoteId, newQuoteId, quoteWindowMs } from "@/lib/sandbox/quotes"

describe("quote ids", () => {
  it("are RFC 9562 UUIDs (version 8) that carry the quote's expiry to the millisecond", () => {
    const expiresAt = new Date("2026-01-31T12:00:30.123Z")
    const id = newQuoteId(expiresAt)
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(expiryOfQuoteId(id)).toEqual(expiresAt)
    expect(expiryOfQuoteId(id.toUpperCase())).toEqual(expiresAt)
  })

  it("are unique, also for one expiry", () => {
    const expiresAt = new Date()
    const ids = new Set(Array.from({ length: 10_000 }, () => newQuoteId(expiresAt)))
    expect(ids.size).toBe(10_000)
  })

  it("are told apart from any other id", () => {
    const id = newQuoteId(new Date())
    for (let i = 0; i < id.length; i++) {
      if (id[i] === "-") continue
      const changed = `${id.slice(0, i)}${id[i] === "0" ? "1" : "0"}${id.slice(i + 1)}`
      expect(expiryOfQuoteId(changed), changed).toBeNull()
    }
    for (let i = 0; i < 1000; i++) expect(expiryOfQuoteId(randomUUID())).toBeNull()
    expect(expiryOfQuoteId("not-a-uuid")).toBeNull()
    expect(expiryOfQuoteId("")).toBeNull()
  })
})

describe("quote windows", () => {
  it("are a second, or the hold time when it is shorter", () => {
    expect(quoteWindowMs(30_000)).toBe(1000)
    expect(quoteWindowMs(1000)).toBe(1000)
    expect(quoteWindowMs(150)).toBe(150)
  })
})
