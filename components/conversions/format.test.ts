import { describe, expect, it } from "vitest"
import type { Conversion } from "@/lib/schemas/records"
import { conversionTimeline } from "./format"

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
    expect(conversionTimeline({ id: "c2", status: "ON_HOLD" }).map((s) => s.label)).toEqual(["Created", "ON_HOLD"])
  })

  it("an orchestration: processing (no cancel), then completed or failed with the service's reason", () => {
    const processing = conversionTimeline({ ...base, status: "PROCESSING" })
    expect(processing[1]).toMatchObject({ label: "Processing", state: "pending" })
    expect(processing[1]!.note).toContain("cannot be cancelled")
    const completed = conversionTimeline({ ...base, status: "COMPLETED", updated_at: "2026-01-31T12:00:02Z" })
    expect(completed[1]).toMatchObject({ label: "Completed", at: "2026-01-31T12:00:02Z", state: "done" })
    const failed = conversionTimeline({ ...base, status: "FAILED", fail_reason: { detail: "destination transfer failed" } })
    expect(failed[1]).toMatchObject({ label: "Failed", note: "destination transfer failed" })
  })

  it("an orchestration waiting for approval at the service, then rejected there: final, nothing moved", () => {
    const waiting = conversionTimeline({ ...base, status: "PENDING" })
    expect(waiting[1]).toMatchObject({ key: "approval", state: "pending" })
    expect(waiting[1]!.note).toContain("Waiting for approval at the service")
    const rejected = conversionTimeline({ ...base, status: "REJECTED", updated_at: "2026-01-31T12:00:03Z" })
    expect(rejected[1]).toMatchObject({ key: "rejected", state: "done", at: "2026-01-31T12:00:03Z", note: "Final: nothing moved." })
  })
})
