import "server-only"
import { and, eq, inArray, isNull, sql } from "drizzle-orm"
import { type Role, roleAtLeast } from "@/lib/auth/roles"
import { activeRole } from "@/lib/auth/staff-bootstrap"
import type { Db } from "@/lib/db/client"
import {
  consoleNotificationChannels,
  consoleNotificationDeliveries,
  consoleNotificationPrefs,
  consoleNotificationRecipients,
  consoleNotifications,
  consoleStaff,
} from "@/lib/db/schema"
import { env } from "@/lib/env"
import type { NotifyKind } from "@/lib/schemas/notify"

/**
 * The outbox: `notify` is called in the transaction of the change that causes a
 * notification, so both are kept or neither is. It writes the notification (one per kind
 * and subject: written twice, it is one), its inbox rows, and one delivery per email and
 * per team channel that carries the kind; the delivery worker (./worker.ts) sends them.
 */

export interface NewNotification {
  kind: NotifyKind
  /** What it is about (a request's id, a passkey's id); with the kind, unique. */
  subject: string
  /** No amounts: it is an email's subject line. */
  title: string
  detail: string
  /** A console path: the deep link. */
  href: string
  /** Staff emails it is for. */
  recipients: readonly string[]
  at: Date
}

/** Writes a notification and its deliveries in `tx`; returns its id, or null when it was written before. */
export async function notify(tx: Db, input: NewNotification): Promise<string | null> {
  const [row] = await tx
    .insert(consoleNotifications)
    .values({ kind: input.kind, subject: input.subject, title: input.title, detail: input.detail, href: input.href, createdAt: input.at })
    .onConflictDoNothing()
    .returning({ id: consoleNotifications.id })
  if (!row) return null
  const recipients = [...new Set(input.recipients.map((e) => e.toLowerCase()))]
  const prefs = recipients.length
    ? await tx
        .select({ email: consoleNotificationPrefs.email, console: consoleNotificationPrefs.console, emailOn: consoleNotificationPrefs.emailOn })
        .from(consoleNotificationPrefs)
        .where(and(inArray(consoleNotificationPrefs.email, recipients), eq(consoleNotificationPrefs.kind, input.kind)))
    : []
  const prefOf = new Map(prefs.map((p) => [p.email, p]))
  const inbox = recipients.filter((email) => prefOf.get(email)?.console ?? true)
  if (inbox.length) await tx.insert(consoleNotificationRecipients).values(inbox.map((email) => ({ notificationId: row.id, email }))).onConflictDoNothing()
  const deliveries: (typeof consoleNotificationDeliveries.$inferInsert)[] = []
  if (env().smtp) {
    for (const email of recipients) {
      if (prefOf.get(email)?.emailOn ?? true) deliveries.push({ notificationId: row.id, channel: "email", target: email, nextAt: input.at, createdAt: input.at })
    }
  }
  const channels = await tx
    .select({ id: consoleNotificationChannels.id, type: consoleNotificationChannels.type })
    .from(consoleNotificationChannels)
    .where(sql`${consoleNotificationChannels.kinds} ? ${input.kind}`)
  for (const channel of channels) deliveries.push({ notificationId: row.id, channel: channel.type, target: channel.id, nextAt: input.at, createdAt: input.at })
  if (deliveries.length) await tx.insert(consoleNotificationDeliveries).values(deliveries).onConflictDoNothing()
  return row.id
}

/**
 * Someone acted on what a notification asked for (an approval request decided): it is
 * resolved for everyone it went to, who see "<what> by <who>" in their inbox.
 */
export async function resolveNotification(tx: Db, input: { kind: NotifyKind; subject: string; by: string; what: string; at: Date }): Promise<void> {
  await tx
    .update(consoleNotifications)
    .set({ resolvedAt: input.at, resolvedBy: input.by, resolution: input.what })
    .where(and(eq(consoleNotifications.kind, input.kind), eq(consoleNotifications.subject, input.subject), isNull(consoleNotifications.resolvedAt)))
}

/** What resolves itself, whatever its subject (the event reader caught up): every open notification of `kind` is resolved. */
export async function resolveOpenOfKind(tx: Db, input: { kind: NotifyKind; by: string; what: string; at: Date }): Promise<number> {
  const rows = await tx
    .update(consoleNotifications)
    .set({ resolvedAt: input.at, resolvedBy: input.by, resolution: input.what })
    .where(and(eq(consoleNotifications.kind, input.kind), isNull(consoleNotifications.resolvedAt)))
    .returning({ id: consoleNotifications.id })
  return rows.length
}

/**
 * Everyone who may approve a request of `makerEmail`: the active staff (CONSOLE_USERS and
 * the demo users as bootstrapped, those invited, and single sign-on users since their
 * first sign-in) whose role the request's tier allows (`roles`; none: a trader or an admin,
 * the rule before tiers), the maker left out.
 */
export async function approversOf(tx: Db, makerEmail: string, roles?: readonly string[] | null): Promise<string[]> {
  const maker = makerEmail.toLowerCase()
  const allowed = (role: Role) => (roles && roles.length > 0 ? roles.includes(role) : roleAtLeast(role, "trader"))
  return (await activeStaff(tx)).filter((s) => s.email !== maker && allowed(s.role)).map((s) => s.email)
}

/** Everyone active on the staff table with `minimum` or above. */
export async function staffAtLeast(tx: Db, minimum: Role): Promise<string[]> {
  return (await activeStaff(tx)).filter((s) => roleAtLeast(s.role, minimum)).map((s) => s.email)
}

/** The staff table's active people with the role each may act with (a demo user only in sandbox mode, as at sign-in). */
async function activeStaff(tx: Db): Promise<{ email: string; role: Role }[]> {
  const rows = await tx
    .select({ email: consoleStaff.email, role: consoleStaff.role, status: consoleStaff.status, source: consoleStaff.source })
    .from(consoleStaff)
    .where(eq(consoleStaff.status, "active"))
    .orderBy(consoleStaff.email)
  return rows.flatMap((row) => {
    const role = activeRole(row)
    return role ? [{ email: row.email, role }] : []
  })
}
