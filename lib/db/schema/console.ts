import { sql } from "drizzle-orm"
import { check, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core"

export const INTENT_OPERATIONS = ["create_execution", "create_conversion", "cancel_conversion"] as const
export type IntentOperation = (typeof INTENT_OPERATIONS)[number]
export const INTENT_STATES = ["PENDING", "SUCCEEDED", "FAILED", "UNKNOWN"] as const
export type IntentState = (typeof INTENT_STATES)[number]

/**
 * Write-ahead rows for every create and cancel the console sends to the service, and
 * the audit trail of who did what. A row is PENDING before the request leaves; it ends
 * SUCCEEDED (record id and status), FAILED (the problem), or UNKNOWN until reconciled.
 */
export const consoleIntents = pgTable(
  "console_intents",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    createdAt: timestamp("created_at", { withTimezone: true, precision: 6 }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, precision: 6 }).notNull().defaultNow(),
    staffEmail: text("staff_email").notNull(),
    staffRole: text("staff_role").notNull(),
    operation: text("operation").$type<IntentOperation>().notNull(),
    profileId: text("profile_id"),
    /** The ref_id a create was sent with; null for a cancel, which the service takes none for. */
    refId: text("ref_id"),
    /** The record a cancel acts on (the conversion's id); null for a create. */
    targetId: text("target_id"),
    request: jsonb("request").$type<Record<string, unknown>>().notNull(),
    /**
     * Which of the service's conversion APIs a conversion intent went to
     * ("stablecoin-conversions" or "orchestrations"); null for quote executions.
     */
    upstreamApi: text("upstream_api"),
    state: text("state").$type<IntentState>().notNull().default("PENDING"),
    attempts: integer("attempts").notNull().default(0),
    recordId: text("record_id"),
    recordStatus: text("record_status"),
    problem: jsonb("problem").$type<Record<string, unknown>>(),
    resolvedAt: timestamp("resolved_at", { withTimezone: true, precision: 6 }),
  },
  (t) => [
    index("console_intents_created_idx").on(t.createdAt.desc(), t.id.desc()),
    index("console_intents_unresolved_idx")
      .on(t.state, t.updatedAt)
      .where(sql`${t.state} in ('PENDING', 'UNKNOWN')`),
    index("console_intents_staff_idx").on(t.staffEmail, t.createdAt.desc()),
    // A create is keyed by its ref_id, a cancel by the record it cancels: never both, never neither.
    check(
      "console_intents_key_check",
      sql`(${t.operation} = 'cancel_conversion' and ${t.targetId} is not null and ${t.refId} is null) or (${t.operation} <> 'cancel_conversion' and ${t.refId} is not null and ${t.targetId} is null)`,
    ),
    // One intent per create and ref_id: concurrent identical submissions meet here.
    uniqueIndex("console_intents_create_ref_idx")
      .on(t.operation, t.refId)
      .where(sql`${t.operation} <> 'cancel_conversion'`),
  ],
)
export type ConsoleIntent = typeof consoleIntents.$inferSelect

/**
 * Console settings changed at runtime, shared by every instance: today only the
 * conversion API an admin picked for a sandbox demo (key `conversions_api`).
 */
export const consoleSettings = pgTable("console_settings", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
  updatedAt: timestamp("updated_at", { withTimezone: true, precision: 6 }).notNull().defaultNow(),
  updatedBy: text("updated_by").notNull(),
})
