import { bigint, integer, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core"

/**
 * What several console instances on one database share so that, together, they stay
 * within the service's per-IP limits. Times are milliseconds since the epoch on the
 * database's clock (one clock for every instance).
 */

/**
 * One row per limit (token, quote_executions, other): the send times reserved within the
 * last window and a pause after a 429. Reserved by `console_rate_acquire` under the row's
 * lock, so waiters are served in the order they reached the database.
 */
export const consoleRateBuckets = pgTable("console_rate_buckets", {
  bucket: text("bucket").primaryKey(),
  slots: bigint("slots", { mode: "number" }).array().notNull().default([]),
  blockedUntil: bigint("blocked_until", { mode: "number" }).notNull().default(0),
})

/** Every running instance, seen every second: how many share the limits when the database is gone. */
export const consoleInstances = pgTable("console_instances", {
  id: text("id").primaryKey(),
  startedAt: timestamp("started_at", { withTimezone: true }).notNull().defaultNow(),
  seenAt: bigint("seen_at", { mode: "number" }).notNull(),
})

/**
 * The one quotes poller (whoever holds the lease) and the quotes it last fetched, read by
 * every other instance. Readers anywhere keep `wanted_until` ahead; nobody polls after it.
 */
export const consoleQuoteFeed = pgTable("console_quote_feed", {
  id: integer("id").primaryKey(),
  holder: text("holder"),
  leaseUntil: bigint("lease_until", { mode: "number" }).notNull().default(0),
  wantedUntil: bigint("wanted_until", { mode: "number" }).notNull().default(0),
  /** The last snapshot: { quotes, markets, fetchedAt, stale } as the quote cache served it. */
  snapshot: jsonb("snapshot").$type<Record<string, unknown>>(),
  /** Bumped on every snapshot written, so a reader knows it has the newest. */
  version: bigint("version", { mode: "number" }).notNull().default(0),
})
