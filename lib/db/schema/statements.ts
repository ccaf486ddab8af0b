import { bigint, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core"
import { sql } from "drizzle-orm"

/** One profile's balances as the service answered them: exact decimal strings, never re-formatted. */
export interface SnapshotBalance {
  asset: string
  available: string
  trading: string
}

/**
 * Balances of every profile as the service answered them at one moment: the observed ends
 * of a statement's day (the service has no historical balance API). `cutoff` is the UTC
 * cutoff a scheduled snapshot stands for (one per cutoff: the unique index is where two
 * instances meet); null for one an admin took now. `taken_at` is when the service was
 * asked, which is what a statement reads it as.
 */
export const consoleBalanceSnapshots = pgTable(
  "console_balance_snapshots",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    cutoff: timestamp("cutoff", { withTimezone: true, precision: 6 }),
    takenAt: timestamp("taken_at", { withTimezone: true, precision: 6 }).notNull(),
    /** "job:<instance id>" or the admin's email. */
    takenBy: text("taken_by").notNull(),
    /** Profile id → that profile's balances. */
    balances: jsonb("balances").$type<Record<string, SnapshotBalance[]>>().notNull(),
    /** A cutoff's snapshot: when the day it closes was tied out (and a difference notified); null until then. */
    tieOutCheckedAt: timestamp("tie_out_checked_at", { withTimezone: true, precision: 6 }),
  },
  (t) => [
    uniqueIndex("console_balance_snapshots_cutoff_idx").on(t.cutoff).where(sql`${t.cutoff} is not null`),
    index("console_balance_snapshots_taken_idx").on(t.takenAt),
  ],
)
export type BalanceSnapshotRow = typeof consoleBalanceSnapshots.$inferSelect

/** The lease of the one instance that takes the scheduled snapshots (the event reader's pattern). */
export const consoleSnapshotJob = pgTable("console_snapshot_job", {
  id: integer("id").primaryKey(),
  holder: text("holder"),
  leaseUntil: bigint("lease_until", { mode: "number" }).notNull().default(0),
})
