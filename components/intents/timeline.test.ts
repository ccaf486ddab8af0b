import { describe, expect, it } from "vitest"
import type { IntentStory } from "@/lib/schemas/search"
import { timelineEvents } from "./timeline"

const base: IntentStory = {
  id: "6f1c2a3b-0000-4000-8000-000000000001",
  operation: "create_execution",
  state: "SUCCEEDED",
  staff_email: "trader@example.com",
  staff_role: "trader",
  profile_id: "p1",
  ref_id: "r1",
  target_id: null,
  upstream_api: null,
  record_id: "e1",
  record_status: "CREATED",
  attempts: 2,
  created_at: "2026-01-31T12:00:00.000Z",
  updated_at: "2026-01-31T12:00:01.000Z",
  resolved_at: "2026-01-31T12:00:01.000Z",
  request: { quote_id: "q1", base_amount: "0.01", ref_id: "r1" },
  problem: null,
  market: null,
  side: null,
  size: null,
  approver: null,
  approval_state: null,
  approval: null,
}

describe("timelineEvents", () => {
  it("tells the console's part and the service's in time order (nanosecond times included)", () => {
    const events = timelineEvents([base], { status: "SETTLED", created_at: "2026-01-31T12:00:00.500123456Z", settled_at: "2026-01-31T12:00:05Z" })
    expect(events.map((e) => [e.title, e.source, e.who])).toEqual([
      ["Execution asked for in the console", "console", "trader@example.com (trader)"],
      ["Record created at the service", "service", undefined],
      ["Sent to the service: accepted (2 attempts)", "console", undefined],
      ["Settled", "service", undefined],
    ])
  })

  it("shows an approval's maker and checker, and a refusal's problem", () => {
    const story: IntentStory = {
      ...base,
      state: "FAILED",
      record_id: null,
      attempts: 1,
      problem: { title: "Unprocessable Entity", status: 422, detail: "insufficient funds" },
      approval: {
        state: "APPROVED",
        maker: { email: "maker@example.com", role: "trader" },
        checker: { email: "checker@example.com", role: "admin" },
        created_at: "2026-01-31T11:00:00.000Z",
        expires_at: "2026-01-31T15:00:00.000Z",
        decided_at: "2026-01-31T11:30:00.000Z",
        comment: "ok",
        reason: null,
      },
    }
    expect(timelineEvents([story], null).map((e) => [e.title, e.who ?? null, e.detail ?? null])).toEqual([
      ["Execution asked for, held for approval", "maker@example.com (trader)", null],
      ["Approved", "checker@example.com (admin)", "ok"],
      ["Refused (1 attempt)", null, "Unprocessable Entity: insufficient funds"],
    ])
  })
})
