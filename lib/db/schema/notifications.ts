import { bigint, boolean, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core"

const at = (name: string) => timestamp(name, { withTimezone: true, precision: 6 })

/**
 * Notifications (lib/console/notify/): one row per thing that happened, written in the
 * transaction of the change that caused it. `(kind, subject)` is unique: the same change
 * written twice is one notification. Its id is the stable id every delivery carries.
 */
export const consoleNotifications = pgTable(
  "console_notifications",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    kind: text("kind").notNull(),
    /** What it is about (an approval request's id, a passkey's id): one notification per kind and subject. */
    subject: text("subject").notNull(),
    /** Never an amount: the title is an email's subject line. */
    title: text("title").notNull(),
    detail: text("detail").notNull(),
    /** A path in the console (the deep link is the public URL plus this). */
    href: text("href").notNull(),
    createdAt: at("created_at").notNull(),
    /** Someone acted on it (an approval request decided): the inbox shows who. */
    resolvedAt: at("resolved_at"),
    resolvedBy: text("resolved_by"),
    resolution: text("resolution"),
  },
  (t) => [uniqueIndex("console_notifications_kind_subject_idx").on(t.kind, t.subject), index("console_notifications_created_idx").on(t.createdAt.desc())],
)
export type ConsoleNotification = typeof consoleNotifications.$inferSelect

/** The inbox: who a notification is for, and whether they read it. */
export const consoleNotificationRecipients = pgTable(
  "console_notification_recipients",
  {
    notificationId: uuid("notification_id").notNull(),
    email: text("email").notNull(),
    readAt: at("read_at"),
  },
  (t) => [primaryKey({ name: "console_notification_recipients_pk", columns: [t.notificationId, t.email] }), index("console_notification_recipients_email_idx").on(t.email, t.readAt)],
)

/**
 * The outbox: one delivery per notification, channel and target, written with it. The
 * worker claims a due one by moving `next_at` on (so a crash mid-send retries it), and
 * marks it sent, or after the last attempt parked with its error. Its id is the
 * `webhook-id` a receiver drops repeats by.
 */
export const consoleNotificationDeliveries = pgTable(
  "console_notification_deliveries",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    notificationId: uuid("notification_id").notNull(),
    /** `email`, or a team channel's type (`chat`, `webhook`). */
    channel: text("channel").$type<"email" | "chat" | "webhook">().notNull(),
    /** An email address, or a team channel's id. */
    target: text("target").notNull(),
    state: text("state").$type<"pending" | "sent" | "parked">().notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAt: at("next_at").notNull(),
    /** The last failure, without URLs or credentials (an HTTP status, an error code). */
    lastError: text("last_error"),
    createdAt: at("created_at").notNull(),
    sentAt: at("sent_at"),
  },
  (t) => [
    uniqueIndex("console_notification_deliveries_once_idx").on(t.notificationId, t.channel, t.target),
    index("console_notification_deliveries_due_idx").on(t.state, t.nextAt),
  ],
)
export type ConsoleNotificationDelivery = typeof consoleNotificationDeliveries.$inferSelect

/** A person's choice per kind: in the console (inbox) and by email. No row: both on. */
export const consoleNotificationPrefs = pgTable(
  "console_notification_prefs",
  {
    email: text("email").notNull(),
    kind: text("kind").notNull(),
    console: boolean("console").notNull(),
    emailOn: boolean("email_on").notNull(),
    updatedAt: at("updated_at").notNull(),
  },
  (t) => [primaryKey({ name: "console_notification_prefs_pk", columns: [t.email, t.kind] })],
)

/** Team channels an admin set: a chat incoming webhook or a signed webhook, and the kinds each carries. URL and secret are secrets. */
export const consoleNotificationChannels = pgTable("console_notification_channels", {
  id: uuid("id").primaryKey().defaultRandom(),
  name: text("name").notNull(),
  type: text("type").$type<"chat" | "webhook">().notNull(),
  url: text("url").notNull(),
  /** webhook: the Standard Webhooks signing secret (`whsec_…`). */
  secret: text("secret"),
  kinds: jsonb("kinds").$type<string[]>().notNull().default([]),
  createdAt: at("created_at").notNull(),
  createdBy: text("created_by").notNull(),
})
export type ConsoleNotificationChannel = typeof consoleNotificationChannels.$inferSelect

/** The lease of the one delivery worker among the instances (id 1), on the database's clock in ms. */
export const consoleNotificationWorker = pgTable("console_notification_worker", {
  id: integer("id").primaryKey(),
  holder: text("holder"),
  leaseUntil: bigint("lease_until", { mode: "number" }).notNull().default(0),
})

/** The team's notification settings (id 1): the size per currency at or over which an order notifies the admins (`large_order`). */
export const consoleNotifySettings = pgTable("console_notify_settings", {
  id: integer("id").primaryKey(),
  largeOrder: jsonb("large_order").$type<Record<string, string>>().notNull().default({}),
  updatedAt: at("updated_at"),
  updatedBy: text("updated_by"),
})
