import type { TimelineStep } from "@/components/ui/step-timeline"
import type { Transfer } from "@/lib/schemas/transfer"


/** CREDIT: money into the profile; DEBIT: out of it. */
export function directionLabel(direction: string | undefined): string {
  if (direction === "CREDIT") return "In (credit)"
  if (direction === "DEBIT") return "Out (debit)"
  return direction ?? "—"
}

/**
 * A transfer's story: created → pending at the service → completed or failed. The
 * service says when it finished only by `updated_at`.
 */
export function transferTimeline(t: Pick<Transfer, "status" | "created_at" | "updated_at" | "direction">): TimelineStep[] {
  const steps: TimelineStep[] = [{ key: "created", label: "Created", at: t.created_at, state: "done" }]
  const moves = t.direction === "DEBIT" ? "debited from" : "credited to"
  if (t.status === "PENDING") {
    steps.push({ key: "pending", label: "Pending", at: undefined, state: "pending", note: `Waiting at the service; nothing is ${moves} the profile yet.` })
    return steps
  }
  steps.push({ key: "pending", label: "Pending", at: t.created_at, state: "done" })
  if (t.status === "COMPLETED") steps.push({ key: "completed", label: "Completed", at: t.updated_at, state: "done", note: `The total was ${moves} the profile.` })
  else if (t.status === "FAILED") steps.push({ key: "failed", label: "Failed", at: t.updated_at, state: "done", note: `Nothing was ${moves} the profile.` })
  else steps.push({ key: "status", label: t.status, at: t.updated_at, state: "done" })
  return steps
}
