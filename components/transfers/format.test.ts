import { describe, expect, it } from "vitest"
import { directionLabel, transferTimeline } from "./format"

const base = { created_at: "2026-03-01T10:00:00Z", updated_at: "2026-03-01T10:00:05Z" }

describe("a transfer's story", () => {
  it("a pending deposit waits at the service, nothing credited yet", () => {
    const steps = transferTimeline({ ...base, status: "PENDING", direction: "CREDIT" })
    expect(steps.map((s) => [s.key, s.state])).toEqual([["created", "done"], ["pending", "pending"]])
    expect(steps[1]!.note).toContain("nothing is credited to the profile yet")
  })

  it("a completed one says when, from updated_at; a failed withdrawal says nothing was debited", () => {
    const done = transferTimeline({ ...base, status: "COMPLETED", direction: "CREDIT" })
    expect(done.map((s) => s.key)).toEqual(["created", "pending", "completed"])
    expect(done[2]!.at).toBe(base.updated_at)
    const failed = transferTimeline({ ...base, status: "FAILED", direction: "DEBIT" })
    expect(failed.map((s) => s.key)).toEqual(["created", "pending", "failed"])
    expect(failed[2]!.note).toBe("Nothing was debited from the profile.")
  })

  it("names the direction for people", () => {
    expect(directionLabel("CREDIT")).toBe("In (credit)")
    expect(directionLabel("DEBIT")).toBe("Out (debit)")
    expect(directionLabel(undefined)).toBe("—")
  })
})
