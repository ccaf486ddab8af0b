import "server-only"
import { and, count, desc, eq, inArray, isNull, sql } from "drizzle-orm"
import type { Db } from "@/lib/db/client"
import {
  consoleNotificationChannels,
  consoleNotificationDeliveries,
  consoleNotificationPrefs,
  consoleNotificationRecipients,
  consoleNotifications,
} from "@/lib/db/schema"
import { notFound } from "@/lib/problem"
import {
  type ChannelView,
  type DeliveryView,
  type Inbox,
  NOTIFY_KINDS,
  type NotifyKind,
  type Preference,
  type channelBodySchema,
} from "@/lib/schemas/notify"
import type { z } from "zod"

/** A person's inbox, their preferences, the admins' team channels and the deliveries list. */

export const INBOX_LIMIT = 50

export async function readInbox(db: Db, email: string, options: { unreadOnly?: boolean } = {}): Promise<Inbox> {
  const me = email.toLowerCase()
  const rows = await db
    .select({
      id: consoleNotifications.id,
      kind: consoleNotifications.kind,
      title: consoleNotifications.title,
      detail: consoleNotifications.detail,
      href: consoleNotifications.href,
      at: consoleNotifications.createdAt,
      readAt: consoleNotificationRecipients.readAt,
      resolvedAt: consoleNotifications.resolvedAt,
      resolvedBy: consoleNotifications.resolvedBy,
      resolution: consoleNotifications.resolution,
    })
    .from(consoleNotificationRecipients)
    .innerJoin(consoleNotifications, eq(consoleNotifications.id, consoleNotificationRecipients.notificationId))
    .where(and(eq(consoleNotificationRecipients.email, me), options.unreadOnly ? isNull(consoleNotificationRecipients.readAt) : undefined))
    .orderBy(desc(consoleNotifications.createdAt), desc(consoleNotifications.id))
    .limit(INBOX_LIMIT)
  const [unread] = await db
    .select({ n: count() })
    .from(consoleNotificationRecipients)
    .where(and(eq(consoleNotificationRecipients.email, me), isNull(consoleNotificationRecipients.readAt)))
  return {
    items: rows.map((r) => ({
      id: r.id,
      kind: (NOTIFY_KINDS as readonly string[]).includes(r.kind) ? (r.kind as NotifyKind) : "approval_waiting",
      title: r.title,
      detail: r.detail,
      href: r.href,
      at: r.at.toISOString(),
      read: r.readAt !== null,
      resolved: r.resolvedAt ? { by: r.resolvedBy ?? "", what: r.resolution ?? "", at: r.resolvedAt.toISOString() } : null,
    })),
    unread: Number(unread?.n ?? 0),
  }
}

/** Marks the person's own notifications (all, or those listed) read or unread; answers how many changed. */
export async function markRead(db: Db, email: string, input: { ids?: string[] | undefined; read: boolean }, now = new Date()): Promise<number> {
  const rows = await db
    .update(consoleNotificationRecipients)
    .set({ readAt: input.read ? now : null })
    .where(
      and(
        eq(consoleNotificationRecipients.email, email.toLowerCase()),
        input.ids ? inArray(consoleNotificationRecipients.notificationId, input.ids) : undefined,
        input.read ? isNull(consoleNotificationRecipients.readAt) : sql`${consoleNotificationRecipients.readAt} is not null`,
      ),
    )
    .returning({ id: consoleNotificationRecipients.notificationId })
  return rows.length
}

export async function readPreferences(db: Db, email: string): Promise<Preference[]> {
  const rows = await db.select().from(consoleNotificationPrefs).where(eq(consoleNotificationPrefs.email, email.toLowerCase()))
  const byKind = new Map(rows.map((r) => [r.kind, r]))
  return NOTIFY_KINDS.map((kind) => ({ kind, console: byKind.get(kind)?.console ?? true, email: byKind.get(kind)?.emailOn ?? true }))
}

export async function savePreferences(db: Db, email: string, items: Preference[], now = new Date()): Promise<Preference[]> {
  const me = email.toLowerCase()
  for (const item of items) {
    await db
      .insert(consoleNotificationPrefs)
      .values({ email: me, kind: item.kind, console: item.console, emailOn: item.email, updatedAt: now })
      .onConflictDoUpdate({
        target: [consoleNotificationPrefs.email, consoleNotificationPrefs.kind],
        set: { console: item.console, emailOn: item.email, updatedAt: now },
      })
  }
  return readPreferences(db, email)
}

/** The URL's scheme and host, never its path or query (an incoming webhook's token is in its path). */
export function urlHint(url: string): string {
  try {
    const u = new URL(url)
    return `${u.protocol}//${u.host}/…`
  } catch {
    return "…"
  }
}

function channelView(row: typeof consoleNotificationChannels.$inferSelect): ChannelView {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    url_hint: urlHint(row.url),
    has_secret: row.secret !== null,
    kinds: row.kinds.filter((k): k is NotifyKind => (NOTIFY_KINDS as readonly string[]).includes(k)),
    created_at: row.createdAt.toISOString(),
    created_by: row.createdBy,
  }
}

export async function listChannels(db: Db): Promise<ChannelView[]> {
  const rows = await db.select().from(consoleNotificationChannels).orderBy(consoleNotificationChannels.createdAt)
  return rows.map(channelView)
}

export async function addChannel(db: Db, by: string, body: z.infer<typeof channelBodySchema>, now = new Date()): Promise<ChannelView> {
  const [row] = await db
    .insert(consoleNotificationChannels)
    .values({ name: body.name, type: body.type, url: body.url, secret: body.type === "webhook" ? (body.secret ?? null) : null, kinds: body.kinds, createdAt: now, createdBy: by })
    .returning()
  if (!row) throw new Error("the insert answered no row")
  return channelView(row)
}

export async function removeChannel(db: Db, id: string): Promise<void> {
  const rows = await db.delete(consoleNotificationChannels).where(eq(consoleNotificationChannels.id, id)).returning({ id: consoleNotificationChannels.id })
  if (rows.length === 0) throw notFound(`No team channel ${id}.`)
}

export const DELIVERIES_LIMIT = 100

/** The most recent deliveries (parked ones first), with their notification's title and the channel's name. */
export async function listDeliveries(db: Db, options: { state?: "pending" | "sent" | "parked" | undefined } = {}): Promise<DeliveryView[]> {
  const rows = await db
    .select({
      d: consoleNotificationDeliveries,
      kind: consoleNotifications.kind,
      title: consoleNotifications.title,
      channelName: consoleNotificationChannels.name,
    })
    .from(consoleNotificationDeliveries)
    .innerJoin(consoleNotifications, eq(consoleNotifications.id, consoleNotificationDeliveries.notificationId))
    .leftJoin(consoleNotificationChannels, sql`${consoleNotificationChannels.id}::text = ${consoleNotificationDeliveries.target}`)
    .where(options.state ? eq(consoleNotificationDeliveries.state, options.state) : undefined)
    .orderBy(sql`${consoleNotificationDeliveries.state} = 'parked' desc`, desc(consoleNotificationDeliveries.createdAt), desc(consoleNotificationDeliveries.id))
    .limit(DELIVERIES_LIMIT)
  return rows.map(({ d, kind, title, channelName }) => ({
    id: d.id,
    notification_id: d.notificationId,
    kind,
    title,
    channel: d.channel,
    target: d.channel === "email" ? d.target : (channelName ?? "(removed channel)"),
    state: d.state,
    attempts: d.attempts,
    next_at: d.nextAt.toISOString(),
    last_error: d.lastError,
    created_at: d.createdAt.toISOString(),
    sent_at: d.sentAt ? d.sentAt.toISOString() : null,
  }))
}
