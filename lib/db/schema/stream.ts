import { bigserial, index, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core"

/**
 * Record status changes pushed on GET /api/stream (issue 37), in commit order: written by the
 * trigger console_stream_intent_changed on console_intents (migration 0020), read by each
 * instance's stream hub (lib/console/stream-hub.ts), replayed from `id` for a stream that
 * reconnects with Last-Event-ID, purged after a day.
 */
export const consoleStreamEvents = pgTable(
  "console_stream_events",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    at: timestamp("at", { withTimezone: true, precision: 6 }).notNull().defaultNow(),
    staffEmail: text("staff_email").notNull(),
    recordId: text("record_id"),
    payload: jsonb("payload").$type<Record<string, unknown>>().notNull(),
  },
  (t) => [index("console_stream_events_at_idx").on(t.at)],
)
