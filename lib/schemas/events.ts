import { z } from "zod"
import { dateTimeFilterSchema, limitSchema, pageCursorSchema } from "@/lib/schemas/paging"

/** The console's event log (GET /api/events): the service's events as the reader recorded them. Client safe. */

export const EVENT_LOG_STATUSES = ["processed", "retrying", "parked"] as const

export const eventLogQuerySchema = z.strictObject({
  /** An event type (`transfer.wire_deposit.completed`), or a prefix ending in a dot (`orchestration.`). */
  type: z.string().trim().max(200, "at most 200 characters").optional(),
  status: z.enum(EVENT_LOG_STATUSES, { error: `must be one of ${EVENT_LOG_STATUSES.join(", ")}` }).optional(),
  from: dateTimeFilterSchema.optional(),
  to: dateTimeFilterSchema.optional(),
  limit: limitSchema(500).default(50),
  page_cursor: pageCursorSchema.optional(),
})
export type EventLogQuery = z.infer<typeof eventLogQuerySchema>

export interface EventLogEntry {
  id: string
  type: string
  object_type: string | null
  object_id: string | null
  /** Where the console shows the object (an orchestration's conversion page); null when it has none. */
  object_href: string | null
  created_at: string
  read_at: string
  status: (typeof EVENT_LOG_STATUSES)[number]
  attempts: number
  last_error: string | null
  next_attempt_at: string | null
  processed_at: string | null
  processed_by: string | null
  replays: number
  /** As the service counted them when the event was read. */
  undelivered_webhooks: number | null
  effects: Record<string, unknown> | null
}

export interface EventReaderSummary {
  /** off: EVENTS_POLL_MS is 0. */
  mode: "solo" | "shared" | "off"
  /** Seconds since the newest event read was created. */
  lag_seconds: number | null
  last_read_seconds: number | null
  retrying: number
  parked: number
}

export interface EventLogPage {
  items: EventLogEntry[]
  next_page_cursor?: string
  reader: EventReaderSummary
}
