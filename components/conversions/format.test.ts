import { describe, expect, it } from "vitest"
import type { Conversion } from "@/lib/schemas/records"
import { conversionTimeline, formatTime } from "./format"

describe("formatTime", () => {
  it("shows UTC to the second, from any RFC 3339 precision or offset", () => {
    expect(formatTime("2026-01-31T12:00:05Z")).toBe("2026-01-31 12:00:05 UTC")
    expect(formatTime("2026-01-31T12:00:05.123456789Z")).toBe("2026-01-31 12:00:05 UTC")
    expect(formatTime("2026-01-31T14:00:05+02:00")).toBe("2026-01-31 12:00:05 UTC")
    expect(formatTime(undefined)).toBe("—")
    expect(formatTime("not a time")).toBe("not a time")
  })
})

describe("conversionTimeline", () => {
  const base: Conversion = { id: "c1", status: "CREATED", created_at: "2026-01-31T12:00:00Z", updated_at: "2026-01-31T12:00:00Z" }

  it("a pending conversion: created, settlement pending, last update", () => {
    expect(conversionTimeline(base).map((s) => [s.key, s.state, s.at])).toEqual([
      ["created", "done", "2026-01-31T12:00:00Z"],
      ["settlement", "pending", undefined],
      ["updated", "done", "2026-01-31T12:00:00Z"],
    ])
  })

  it("settled and cancelled ones end in their own step with its time", () => {
    const settled = conversionTimeline({ ...base, status: "SETTLED", settled_at: "2026-01-31T12:00:02Z", updated_at: "2026-01-31T12:00:02Z" })
    expect(settled.map((s) => [s.label, s.at])).toEqual([
      ["Created", "2026-01-31T12:00:00Z"],
      ["Settled", "2026-01-31T12:00:02Z"],
      ["Last updated", "2026-01-31T12:00:02Z"],
    ])
    const cancelled = conversionTimeline({ ...base, status: "CANCELLED", cancelled_at: "2026-01-31T12:00:01Z" })
    expect(cancelled[1]).toMatchObject({ label: "Cancelled", at: "2026-01-31T12:00:01Z", state: "done" })
  })

  it("shows a status it does not know as it is", () => {
    expect(conversionTimeline({ id: "c2", status: "PROCESSING" }).map((s) => s.label)).toEqual(["Created", "PROCESSING"])
  })
})
