import { describe, expect, it } from "vitest"
import { formatTimestamp, localInputToRfc3339, rfc3339ToLocalInput } from "@/components/executions/format"

describe("formatTimestamp", () => {
  it("keeps the written digits", () => {
    expect(formatTimestamp("2026-01-31T12:00:05Z")).toBe("2026-01-31 12:00:05 UTC")
    expect(formatTimestamp("2026-01-31T12:00:05.123456789Z")).toBe("2026-01-31 12:00:05.123456789 UTC")
    expect(formatTimestamp("2026-01-31T12:00:05+01:00")).toBe("2026-01-31 12:00:05 +01:00")
    expect(formatTimestamp(undefined)).toBe("—")
    expect(formatTimestamp("yesterday")).toBe("yesterday")
  })
})

describe("datetime-local conversions", () => {
  it("round-trips through the browser's zone", () => {
    const begin = localInputToRfc3339("2026-01-31T12:00:05", "begin")!
    expect(rfc3339ToLocalInput(begin)).toBe("2026-01-31T12:00:05")
  })
  it("makes 'to' inclusive of the picked minute or second", () => {
    const minuteBegin = Date.parse(localInputToRfc3339("2026-01-31T12:00", "begin")!)
    expect(Date.parse(localInputToRfc3339("2026-01-31T12:00", "end")!) - minuteBegin).toBe(59_999)
    const secondBegin = Date.parse(localInputToRfc3339("2026-01-31T12:00:05", "begin")!)
    expect(Date.parse(localInputToRfc3339("2026-01-31T12:00:05", "end")!) - secondBegin).toBe(999)
  })
  it("refuses what is not a date and time", () => {
    expect(localInputToRfc3339("", "begin")).toBeUndefined()
    expect(localInputToRfc3339("31/01/2026", "begin")).toBeUndefined()
    expect(rfc3339ToLocalInput("nope")).toBe("")
  })
})
