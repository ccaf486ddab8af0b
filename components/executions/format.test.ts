import { describe, expect, it } from "vitest"
import { utcInputToRfc3339, rfc3339ToUtcInput } from "@/components/executions/format"

describe("datetime-local conversions", () => {
  it("reads the input as UTC, like the table's times, whatever the browser's zone", () => {
    expect(utcInputToRfc3339("2026-01-31T12:00:05", "begin")).toBe("2026-01-31T12:00:05.000Z")
    expect(utcInputToRfc3339("2026-01-31T12:00", "end")).toBe("2026-01-31T12:00:59.999Z")
    expect(rfc3339ToUtcInput("2026-01-31T12:00:05.123456Z")).toBe("2026-01-31T12:00:05")
    expect(rfc3339ToUtcInput("2026-01-31T14:00:05+02:00")).toBe("2026-01-31T12:00:05")
    const begin = utcInputToRfc3339("2026-01-31T12:00:05", "begin")!
    expect(rfc3339ToUtcInput(begin)).toBe("2026-01-31T12:00:05")
  })
  it("makes 'to' inclusive of the picked minute or second", () => {
    const minuteBegin = Date.parse(utcInputToRfc3339("2026-01-31T12:00", "begin")!)
    expect(Date.parse(utcInputToRfc3339("2026-01-31T12:00", "end")!) - minuteBegin).toBe(59_999)
    const secondBegin = Date.parse(utcInputToRfc3339("2026-01-31T12:00:05", "begin")!)
    expect(Date.parse(utcInputToRfc3339("2026-01-31T12:00:05", "end")!) - secondBegin).toBe(999)
  })
  it("refuses what is not a date and time", () => {
    expect(utcInputToRfc3339("", "begin")).toBeUndefined()
    expect(utcInputToRfc3339("31/01/2026", "begin")).toBeUndefined()
    expect(utcInputToRfc3339("2026-02-30T12:00", "begin")).toBeUndefined()
    expect(rfc3339ToUtcInput("nope")).toBe("")
  })
})
