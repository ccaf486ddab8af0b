import { describe, expect, it } from "vitest"
import { instantMs, remainingSeconds } from "@/components/trade/clock"

describe("instantMs", () => {
  it("reads none to nine fractional digits", () => {
    expect(instantMs("2026-01-31T12:00:00Z")).toBe(Date.UTC(2026, 0, 31, 12, 0, 0))
    expect(instantMs("2026-01-31T12:00:00.5Z")).toBe(Date.UTC(2026, 0, 31, 12, 0, 0, 500))
    expect(instantMs("2026-01-31T12:00:00.123456789Z")).toBe(Date.UTC(2026, 0, 31, 12, 0, 0, 123))
    expect(instantMs("2026-01-31T13:00:00.123456+01:00")).toBe(Date.UTC(2026, 0, 31, 12, 0, 0, 123))
  })
})

describe("remainingSeconds", () => {
  const expires = "2026-01-31T12:00:30Z"
  const at = (iso: string) => Date.parse(iso)
  it("rounds up while the quote holds and is 0 from its expiry on", () => {
    expect(remainingSeconds(expires, at("2026-01-31T12:00:00Z"))).toBe(30)
    expect(remainingSeconds(expires, at("2026-01-31T12:00:29.001Z"))).toBe(1)
    expect(remainingSeconds(expires, at("2026-01-31T12:00:30Z"))).toBe(0)
    expect(remainingSeconds(expires, at("2026-01-31T12:01:00Z"))).toBe(0)
    expect(remainingSeconds("not a time", at("2026-01-31T12:00:00Z"))).toBe(0)
  })
})
