import type { IntentStory } from "@/lib/schemas/search"

/** The service's times on a record (those it has). */
export interface RecordTimes {
  created_at?: string | undefined
  settled_at?: string | undefined
  cancelled_at?: string | undefined
  updated_at?: string | undefined
  status: string
}

export interface TimelineEvent {
  at: string
  title: string
  /** Who did it, when a person did. */
  who?: string | undefined
  detail?: string | undefined
  /** The console's (intent log, approvals) or the service's. */
  source: "console" | "service"
  tone: "neutral" | "good" | "bad"
}

const WHAT: Record<string, string> = {
  create_execution: "Execution",
  create_conversion: "Conversion",
  cancel_conversion: "Cancel",
  update_policy: "Policy change",
  replay_event: "Event replay",
  take_snapshot: "Balance snapshot",
  update_notifications: "Team notifications change",
}

function attempts(n: number): string {
  return `${n} attempt${n === 1 ? "" : "s"}`
}

function intentEvents(story: IntentStory): TimelineEvent[] {
  const events: TimelineEvent[] = []
  const what = WHAT[story.operation] ?? story.operation
  const who = `${story.staff_email} (${story.staff_role})`
  const approval = story.approval
  if (approval) {
    events.push({ at: approval.created_at, title: `${what} asked for, held for approval`, who: `${approval.maker.email} (${approval.maker.role})`, source: "console", tone: "neutral" })
    if (approval.decided_at && approval.state !== "PENDING") {
      const checker = approval.checker ? `${approval.checker.email} (${approval.checker.role})` : undefined
      const words: Record<string, string> = {
        APPROVED: "Approved",
        REJECTED: "Rejected",
        WITHDRAWN: "Withdrawn by the maker",
        EXPIRED: "Expired without a decision",
        PRICE_MOVED: "Not sent: the price moved past the limit",
        VOIDED: "Voided: the maker no longer has the access to place it",
      }
      events.push({
        at: approval.decided_at,
        title: words[approval.state] ?? approval.state,
        who: approval.state === "APPROVED" || approval.state === "REJECTED" ? checker : undefined,
        detail: approval.reason ?? approval.comment ?? undefined,
        source: "console",
        tone: approval.state === "APPROVED" ? "good" : "bad",
      })
    }
  } else {
    events.push({ at: story.created_at, title: `${what} asked for in the console`, who, source: "console", tone: "neutral" })
  }
  if (story.state === "SUCCEEDED") {
    events.push({
      at: story.resolved_at ?? story.updated_at,
      title: `Sent to the service: accepted (${attempts(story.attempts)})`,
      detail: story.record_status ? `the service answered ${story.record_status}` : undefined,
      source: "console",
      tone: "good",
    })
  } else if (story.state === "FAILED") {
    events.push({
      at: story.resolved_at ?? story.updated_at,
      title: `Refused (${attempts(story.attempts)})`,
      detail: story.problem ? `${story.problem.title}${story.problem.detail ? `: ${story.problem.detail}` : ""}` : undefined,
      source: "console",
      tone: "bad",
    })
  } else if (story.state === "REFUSED") {
    events.push({
      at: story.resolved_at ?? story.updated_at,
      title: "Refused by the console: nothing was sent",
      detail: story.problem ? `${story.problem.title}${story.problem.detail ? `: ${story.problem.detail}` : ""}` : undefined,
      source: "console",
      tone: "bad",
    })
  } else if (story.state === "UNKNOWN" || story.state === "PENDING") {
    events.push({
      at: story.updated_at,
      title: story.state === "PENDING" ? "Being sent" : `Outcome not known yet (${attempts(story.attempts)}); the reconciler will settle it`,
      detail: story.problem?.detail ?? undefined,
      source: "console",
      tone: "neutral",
    })
  }
  return events
}

/** The console's intents and the service's record as one story, oldest first. */
export function timelineEvents(stories: IntentStory[], record: RecordTimes | null): TimelineEvent[] {
  const events = stories.flatMap(intentEvents)
  if (record?.created_at) events.push({ at: record.created_at, title: "Record created at the service", source: "service", tone: "neutral" })
  if (record?.settled_at) events.push({ at: record.settled_at, title: "Settled", source: "service", tone: "good" })
  if (record?.cancelled_at) {
    // Who cancelled it: the staff member whose cancel the service accepted, when it went through this console.
    const cancel = stories.find((s) => s.operation === "cancel_conversion" && s.state === "SUCCEEDED")
    const who = cancel ? `${cancel.staff_email} (${cancel.staff_role})` : undefined
    events.push({ at: record.cancelled_at, title: "Cancelled", who, source: "service", tone: "bad" })
  }
  const ended = ["COMPLETED", "FAILED"]
  if (record && !record.settled_at && !record.cancelled_at && ended.includes(record.status) && record.updated_at) {
    events.push({ at: record.updated_at, title: record.status === "COMPLETED" ? "Completed" : "Failed", source: "service", tone: record.status === "COMPLETED" ? "good" : "bad" })
  }
  // The service may send nanoseconds: compared to the millisecond, like the pages show them.
  const time = (at: string) => Date.parse(at.replace(/(\.\d{3})\d+/, "$1"))
  return events.sort((a, b) => time(a.at) - time(b.at))
}
