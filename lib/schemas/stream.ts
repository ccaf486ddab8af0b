import { z } from "zod"
import { approvalPageSchema } from "@/lib/schemas/approvals"
import { notificationPageSchema } from "@/lib/schemas/notifications"
import { inboxSchema } from "@/lib/schemas/notify"
import { overviewSchema } from "@/lib/schemas/overview"
import { quoteSchema } from "@/lib/schemas/records"

/**
 * GET /api/stream (issue 37): the Server-Sent Events one open tab receives instead of
 * polling. Each event's `data:` is JSON validated by the schema of its `event:` name, on
 * the server before it is sent and in the browser when it arrives; the same schemas as the
 * JSON routes that poll the same things.
 */

/** GET /api/quotes and the stream's `quotes` event: the held quotes, when fetched, whether stale. */
export const quoteSnapshotSchema = z.object({
  items: z.array(quoteSchema),
  markets: z.array(z.string()),
  fetched_at: z.string(),
  stale: z.boolean(),
})

/** A placement's status as the console knows it (its intent): sent with `id:`, resumable. */
export const recordStatusEventSchema = z.object({
  intent_id: z.string(),
  operation: z.enum(["create_execution", "create_conversion", "cancel_conversion"]),
  profile_id: z.string().nullable(),
  record_id: z.string().nullable(),
  state: z.string(),
  record_status: z.string().nullable(),
  final_status: z.string().nullable(),
  at: z.string(),
})
export type RecordStatusEvent = z.infer<typeof recordStatusEventSchema>

/** GET /api/sandbox/status and the stream's `sandbox` event: whether a fault rule can fire. */
export const sandboxStatusSchema = z.object({
  faults_active: z.boolean(),
  active_rules: z.number().int().nonnegative(),
  operations: z.array(z.string()),
})

/**
 * What a stream may carry besides quotes, record status and the sandbox status, each sent
 * as an event of its own name with the same JSON as the route that polls it:
 * - `inbox`: GET /api/notifications/inbox (the bell, the drawer, /notifications);
 * - `approvals`: GET /api/approvals?state=PENDING&limit=1 (the count waiting for you; trader+);
 * - `approval_list`: GET /api/approvals?limit=100 (the /approvals page's list, every state,
 *   with the counts waiting; trader+);
 * - `overview`: GET /api/overview (totals, the live feed, today's activity);
 * - `notifications`: GET /api/notifications's page (toasts; trader+): only events not pushed before.
 */
export const STREAM_TOPICS = ["inbox", "approvals", "approval_list", "overview", "notifications"] as const
export type StreamTopic = (typeof STREAM_TOPICS)[number]

/** First event of every stream: the id to resume from and the server's pace. */
export const streamReadySchema = z.object({
  /** The newest record event id when the stream opened (or the Last-Event-ID it resumed from). */
  last_event_id: z.string(),
  heartbeat_ms: z.number().int().positive(),
  session_recheck_ms: z.number().int().positive(),
  /** The topics this stream carries (those asked for that the person's role may read). */
  topics: z.array(z.enum(STREAM_TOPICS)),
})

/** Last event of a stream the server ends: the session is over, or the instance is stopping. */
export const streamEndSchema = z.object({
  reason: z.enum(["session_ended", "shutting_down"]),
})

export const STREAM_EVENT_SCHEMAS = {
  ready: streamReadySchema,
  quotes: quoteSnapshotSchema,
  record: recordStatusEventSchema,
  sandbox: sandboxStatusSchema,
  inbox: inboxSchema,
  approvals: approvalPageSchema,
  approval_list: approvalPageSchema,
  overview: overviewSchema,
  notifications: notificationPageSchema,
  end: streamEndSchema,
} as const
export type StreamEventName = keyof typeof STREAM_EVENT_SCHEMAS
export type StreamEventData<N extends StreamEventName> = z.infer<(typeof STREAM_EVENT_SCHEMAS)[N]>

/** The stream's query: markets whose quotes to push, records whose status to push (besides the person's own). */
export const streamQuerySchema = z.object({
  /** `all`: every market's quotes (the trade desk's grid); else only `markets`. */
  quotes: z.enum(["all"]).optional(),
  markets: z.array(z.string().regex(/^[A-Z0-9]{4,16}$/, "each market is like BTCUSD")).max(64, "at most 64 markets"),
  records: z.array(z.string().regex(/^[A-Za-z0-9_-]{1,100}$/, "each record is an id")).max(50, "at most 50 records"),
  topics: z.array(z.enum(STREAM_TOPICS, { error: `each topic is one of ${STREAM_TOPICS.join(", ")}` })).max(STREAM_TOPICS.length, "each topic once"),
  /** The Last-Event-ID header (or this query parameter, for a stream reopened by hand): the id of a record event. */
  last_event_id: z.string().regex(/^\d{1,15}$/, "is an event id from this stream").optional(),
})

