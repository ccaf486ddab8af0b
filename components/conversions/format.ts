import type { TimelineStep } from "@/components/ui/step-timeline"
import type { Conversion } from "@/lib/schemas/records"

/** A step that happened, at the time the record states for it (if it states one). */
function done(key: string, label: string, at: string | undefined, note?: string): TimelineStep {
  return { key, label, at, state: "done", ...(note === undefined ? {} : { note }) }
}

/** A step still to come: no time yet, and what it waits for. */
function pending(key: string, label: string, note: string): TimelineStep {
  return { key, label, at: undefined, state: "pending", note }
}

/** Where each status leaves a conversion, after "Created". */
const STEP_OF_STATUS: Record<string, (conversion: Conversion) => TimelineStep> = {
  CREATED: () => pending("settlement", "Settlement", "Waiting to settle; a trader can still cancel it."),
  SETTLED: (c) => done("settled", "Settled", c.settled_at),
  CANCELLED: (c) => done("cancelled", "Cancelled", c.cancelled_at, "The source amount was refunded."),
  // The Orchestrations API's statuses: it has no cancel, and says when it finished only by updated_at.
  PROCESSING: () => pending("processing", "Processing", "The service is moving the funds; an orchestration cannot be cancelled."),
  COMPLETED: (c) => done("completed", "Completed", c.updated_at),
  FAILED: (c) => done("failed", "Failed", c.updated_at, c.fail_reason?.detail ?? "The service gave no reason."),
  // Approval at the service (its own maker-checker, not the console's four-eyes).
  PENDING: () => pending("approval", "Approval at the service", "Waiting for approval at the service (not the console's four-eyes); nothing has moved yet."),
  REJECTED: (c) => done("rejected", "Rejected at the service", c.updated_at, "Final: nothing moved."),
}

/** The states a conversion went through, with their times, in order. */
export function conversionTimeline(conversion: Conversion): TimelineStep[] {
  const step = STEP_OF_STATUS[conversion.status] ?? ((c: Conversion) => done("status", c.status, undefined))
  const steps = [done("created", "Created", conversion.created_at), step(conversion)]
  if (conversion.updated_at) steps.push(done("updated", "Last updated", conversion.updated_at))
  return steps
}
