import { sql } from "drizzle-orm"
import { check, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core"

const at = (name: string) => timestamp(name, { withTimezone: true, precision: 6 })

export const STAFF_STATUSES = ["invited", "active", "disabled"] as const
export type StaffStatus = (typeof STAFF_STATUSES)[number]
/** How a row came to be: CONSOLE_USERS, the sandbox demo users, an invitation, a first single sign-on. */
export const STAFF_SOURCES = ["bootstrap", "demo", "invitation", "sso"] as const
export type StaffSource = (typeof STAFF_SOURCES)[number]

/**
 * Everyone who may sign in (migration 0022). The sign-in paths and every session check
 * read this table: a role change, disabling or removal applies on the next request.
 * `password_hash`: bcrypt (CONSOLE_USERS) or scrypt (set in the console); null for
 * single sign-on, passkey-only staff, and the demo users (who use DEMO_PASSWORD).
 */
export const consoleStaff = pgTable(
  "console_staff",
  {
    email: text("email").primaryKey(),
    role: text("role").notNull(),
    status: text("status").$type<StaffStatus>().notNull(),
    source: text("source").$type<StaffSource>().notNull(),
    passwordHash: text("password_hash"),
    invitedBy: text("invited_by"),
    createdAt: at("created_at").notNull().defaultNow(),
    updatedAt: at("updated_at").notNull().defaultNow(),
    updatedBy: text("updated_by"),
  },
  (t) => [
    check("console_staff_email_lower", sql`${t.email} = lower(${t.email})`),
    check("console_staff_role", sql`${t.role} in ('viewer', 'support', 'trader', 'admin')`),
    check("console_staff_status", sql`${t.status} in ('invited', 'active', 'disabled')`),
  ],
)
export type ConsoleStaffRow = typeof consoleStaff.$inferSelect

/**
 * Emails the bootstrap (CONSOLE_USERS, demo users) has created once: never again, so a
 * person removed in the console stays removed across restarts.
 */
export const consoleStaffSeeded = pgTable("console_staff_seeded", {
  email: text("email").primaryKey(),
  seededAt: at("seeded_at").notNull().defaultNow(),
})

/** Invitations: only the SHA-256 of the one-time token is kept; 24 h, single use, withdrawable. */
export const consoleStaffInvitations = pgTable(
  "console_staff_invitations",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    email: text("email").notNull(),
    role: text("role").notNull(),
    tokenHash: text("token_hash").notNull(),
    invitedBy: text("invited_by").notNull(),
    createdAt: at("created_at").notNull(),
    expiresAt: at("expires_at").notNull(),
    acceptedAt: at("accepted_at"),
    withdrawnAt: at("withdrawn_at"),
    withdrawnBy: text("withdrawn_by"),
  },
  (t) => [uniqueIndex("console_staff_invitations_token_idx").on(t.tokenHash), index("console_staff_invitations_email_idx").on(t.email)],
)
export type ConsoleStaffInvitation = typeof consoleStaffInvitations.$inferSelect

/** Team-wide sign-in rules (one row, id 1): the roles that must sign in with a passkey. */
export const consoleStaffSettings = pgTable("console_staff_settings", {
  id: integer("id").primaryKey(),
  passkeyRoles: jsonb("passkey_roles").$type<string[]>().notNull().default([]),
  updatedAt: at("updated_at").notNull(),
  updatedBy: text("updated_by"),
})
