import { sql } from "drizzle-orm"
import { bigserial, index, integer, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core"

const at = (name: string) => timestamp(name, { withTimezone: true, precision: 6 })

/**
 * Signed-in sessions. The session cookie carries only the row's id: a session whose row
 * is gone is over, on every instance, whatever the cookie says. `role` is the role taken
 * at sign-in; the staff table's (console_staff) current role wins on every request.
 */
export const consoleSessions = pgTable(
  "console_sessions",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    staffEmail: text("staff_email").notNull(),
    role: text("role").notNull(),
    /** credentials (a password), passkey, or oidc (single sign-on). */
    provider: text("provider").notNull(),
    createdAt: at("created_at").notNull().defaultNow(),
    lastSeenAt: at("last_seen_at").notNull().defaultNow(),
    userAgent: text("user_agent"),
    address: text("address"),
  },
  (t) => [index("console_sessions_email_idx").on(t.staffEmail), index("console_sessions_last_seen_idx").on(t.lastSeenAt)],
)
export type ConsoleSession = typeof consoleSessions.$inferSelect

/** Sign-in and session events, for the audit trail. `email` is null for an email no staff has. */
export const consoleAuthEvents = pgTable(
  "console_auth_events",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    at: at("at").notNull().defaultNow(),
    /** The order events were written in: breaks ties of `at`, which a transaction's events share (migration 0027). */
    seq: bigserial("seq", { mode: "number" }).notNull(),
    kind: text("kind").notNull(),
    email: text("email"),
    /** Who did it, when not the session's owner (an admin ending a session). */
    actor: text("actor"),
    sessionId: uuid("session_id"),
    address: text("address"),
    detail: jsonb("detail").$type<Record<string, unknown>>(),
  },
  (t) => [
    index("console_auth_events_at_idx").on(t.at.desc(), t.seq.desc()),
    // A maker's latest single sign-on, by email (lib/auth/standing.ts); migration 0018.
    index("console_auth_events_email_idx").on(sql`lower(${t.email})`, t.at.desc(), t.seq.desc()),
  ],
)
export type ConsoleAuthEvent = typeof consoleAuthEvents.$inferSelect

/**
 * Failed sign-ins, by key: `email:<sha-256 of the email>` or `address:<client address>`.
 * Shared by every instance, so a guesser gains nothing by spreading requests.
 */
export const consoleSignInThrottle = pgTable("console_sign_in_throttle", {
  key: text("key").primaryKey(),
  failures: integer("failures").notNull().default(0),
  windowStartedAt: at("window_started_at").notNull(),
  lastFailureAt: at("last_failure_at").notNull(),
  lockedUntil: at("locked_until"),
  lockouts: integer("lockouts").notNull().default(0),
})
