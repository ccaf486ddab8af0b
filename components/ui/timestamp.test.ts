import { describe, expect, it } from "vitest"
import { formatTimestamp } from "@/components/ui/timestamp"

describe("formatTimestamp", () => {
  it("shows UTC to the second, labelled, from any RFC 3339 precision or offset", () => {
    expect(formatTimestamp("2026-01-31T12:00:05Z")).toBe("2026-01-31 12:00:05 UTC")
    expect(formatTimestamp("2026-01-31T12:00:05.123456789Z")).toBe("2026-01-31 12:00:05 UTC")
    expect(formatTimestamp("2026-01-31T14:00:05+02:00")).toBe("2026-01-31 12:00:05 UTC")
    expect(formatTimestamp("2026-03-01T23:30:05-01:00")).toBe("2026-03-02 00:30:05 UTC")
  })

  it("shows what is not a time as it is, and no time as a dash", () => {
    expect(formatTimestamp("not a time")).toBe("not a time")
    expect(formatTimestamp(undefined)).toBe("—")
    expect(formatTimestamp(null)).toBe("—")
  })
})
