import { bigint, index, integer, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core"

export const CONSOLE_EVENT_STATUSES = ["processed", "retrying", "parked"] as const
export type ConsoleEventStatus = (typeof CONSOLE_EVENT_STATUSES)[number]

/**
 * Every event of the service the console's event reader has read, once each (the event id
 * is the key): processed (when, by which instance), retrying after a failure (attempts,
 * the next try), or parked with the reason after the last attempt failed. The row is
 * written in the transaction that applies the event and moves the reader's cursor.
 */
export const consoleEvents = pgTable(
  "console_events",
  {
    id: text("id").primaryKey(),
    type: text("type").notNull(),
    objectType: text("object_type"),
    /** The object's id (an orchestration's, a transfer's), for the link. */
    objectId: text("object_id"),
    object: jsonb("object").$type<Record<string, unknown>>(),
    createdAt: timestamp("created_at", { withTimezone: true, precision: 6 }).notNull(),
    readAt: timestamp("read_at", { withTimezone: true, precision: 6 }).notNull().defaultNow(),
    status: text("status").$type<ConsoleEventStatus>().notNull(),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true, precision: 6 }),
    lastError: text("last_error"),
    processedAt: timestamp("processed_at", { withTimezone: true, precision: 6 }),
    processedBy: text("processed_by"),
    /** What the processing changed, so a replay changes nothing already applied (e.g. {"feed": true, "notified": "intent id"}). */
    effects: jsonb("effects").$type<Record<string, unknown>>(),
    replays: integer("replays").notNull().default(0),
    undeliveredWebhooks: integer("undelivered_webhooks"),
  },
  (t) => [
    index("console_events_created_idx").on(t.createdAt, t.id),
    index("console_events_status_idx").on(t.status, t.nextAttemptAt),
    index("console_events_type_idx").on(t.type, t.createdAt),
    // An orchestration's newest event (lib/console/followed-orchestrations.ts).
    index("console_events_object_idx").on(t.objectId, t.createdAt),
  ],
)
export type ConsoleEventRow = typeof consoleEvents.$inferSelect

/**
 * The one event reader of every instance on the database: the lease (holder, renewed every
 * tick, lost after `lease_until` without renewal), the cursor (the newest event read:
 * its created_at and id), and a wake-up a webhook hint leaves for the holder.
 */
export const consoleEventReader = pgTable("console_event_reader", {
  id: integer("id").primaryKey(),
  holder: text("holder"),
  leaseUntil: bigint("lease_until", { mode: "number" }).notNull().default(0),
  cursorAt: timestamp("cursor_at", { withTimezone: true, precision: 6 }),
  cursorId: text("cursor_id"),
  /** Set by a webhook hint on any instance (ms since the epoch); the holder reads early and clears it. */
  wakeAt: bigint("wake_at", { mode: "number" }),
  lastReadAt: timestamp("last_read_at", { withTimezone: true, precision: 6 }),
})
