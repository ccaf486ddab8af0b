import "server-only"
import { eq, sql } from "drizzle-orm"
import type { Staff } from "@/lib/auth/roles"
import { recordNotifySettingsChange } from "@/lib/console/intents"
import { addChannel, removeChannel, urlHint } from "@/lib/console/notify/inbox"
import { asRequest, refusalProblem } from "@/lib/console/refusals"
import { boundedTransaction } from "@/lib/db/bounded"
import type { Db } from "@/lib/db/client"
import { consoleNotificationChannels, consoleNotifySettings } from "@/lib/db/schema"
import { log } from "@/lib/log"
import { notFound } from "@/lib/problem"
import type { ChannelView, NotifySettingsBody, NotifySettingsView, channelBodySchema } from "@/lib/schemas/notify"
import type { z } from "zod"

/**
 * The team's notification settings an admin changes (the team channels, the large-order
 * sizes), each change on the audit trail (operation `update_notifications`) in the
 * transaction that makes it, with before and after and who; a refused attempt too, with the
 * problem it was answered with. A channel is kept on the trail as its name, type, URL hint
 * (scheme and host), whether it has a secret and the kinds it carries: never its URL's path
 * or query (an incoming webhook's token), never its secret.
 */

const SETTINGS_ROW = 1

/** The value a `large_order` entry is keyed by on the trail. */
export const LARGE_ORDER_TARGET = "large_order"

/** The large-order sizes in force, as a value inside another query (null until an admin sets them). */
export const storedLargeOrderJson = sql<unknown>`(select ${consoleNotifySettings.largeOrder} from ${consoleNotifySettings} where ${eq(consoleNotifySettings.id, SETTINGS_ROW)})`

/** The sizes per currency from the stored JSON (`storedLargeOrderJson`): none set, none apply. */
export function largeOrderFromJson(json: unknown): Record<string, string> {
  const value = typeof json === "string" ? (JSON.parse(json) as unknown) : json
  if (!value || typeof value !== "object" || Array.isArray(value)) return {}
  return Object.fromEntries(Object.entries(value).filter((e): e is [string, string] => typeof e[1] === "string"))
}

export async function readNotifySettings(db: Db): Promise<NotifySettingsView> {
  const [row] = await db.select().from(consoleNotifySettings).where(eq(consoleNotifySettings.id, SETTINGS_ROW))
  return {
    large_order: largeOrderFromJson(row?.largeOrder ?? {}),
    updated_at: row?.updatedAt ? row.updatedAt.toISOString() : null,
    updated_by: row?.updatedBy ?? null,
  }
}

/** Replaces the large-order sizes; the change goes on the audit trail with before and after. */
export async function saveNotifySettings(db: Db, staff: Staff, body: NotifySettingsBody, at = new Date()): Promise<NotifySettingsView> {
  await boundedTransaction(db, async (tx) => {
    // One writer at a time, so each entry's "before" is the setting it replaced.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext('console_notify_settings'))`)
    const [row] = await tx.select().from(consoleNotifySettings).where(eq(consoleNotifySettings.id, SETTINGS_ROW))
    const before = largeOrderFromJson(row?.largeOrder ?? {})
    const after = { ...body.large_order }
    await tx
      .insert(consoleNotifySettings)
      .values({ id: SETTINGS_ROW, largeOrder: after, updatedAt: at, updatedBy: staff.email })
      .onConflictDoUpdate({ target: consoleNotifySettings.id, set: { largeOrder: after, updatedAt: at, updatedBy: staff.email } })
    await recordNotifySettingsChange(tx, staff, { target: LARGE_ORDER_TARGET, request: { change: "large_order", before: { large_order: before }, after: { large_order: after } } }, at)
  })
  return readNotifySettings(db)
}

/** A channel as the trail keeps it: what an admin recognises it by, never its token or secret. */
export function channelOnTrail(channel: { name?: unknown; type?: unknown; url?: unknown; url_hint?: unknown; secret?: unknown; has_secret?: unknown; kinds?: unknown }): Record<string, unknown> {
  const text = (v: unknown) => (typeof v === "string" ? v.slice(0, 80) : null)
  return {
    name: text(channel.name),
    type: text(channel.type),
    url_hint: typeof channel.url_hint === "string" ? channel.url_hint : typeof channel.url === "string" ? urlHint(channel.url) : null,
    has_secret: typeof channel.has_secret === "boolean" ? channel.has_secret : typeof channel.secret === "string" && channel.secret !== "",
    kinds: Array.isArray(channel.kinds) ? channel.kinds.filter((k): k is string => typeof k === "string").slice(0, 20) : [],
  }
}

/** Adds a team channel; on the trail in the same transaction. */
export async function addTeamChannel(db: Db, staff: Staff, body: z.infer<typeof channelBodySchema>, at = new Date()): Promise<ChannelView> {
  return boundedTransaction(db, async (tx) => {
    const channel = await addChannel(tx, staff.email, body, at)
    await recordNotifySettingsChange(tx, staff, { target: channel.id, request: { change: "channel_added", before: null, after: channelOnTrail(channel) } }, at)
    return channel
  })
}

/** Removes a team channel; on the trail in the same transaction (with what it was). */
export async function removeTeamChannel(db: Db, staff: Staff, id: string, at = new Date()): Promise<void> {
  await boundedTransaction(db, async (tx) => {
    const [row] = await tx.select().from(consoleNotificationChannels).where(eq(consoleNotificationChannels.id, id))
    if (!row) throw notFound(`No team channel ${id}.`)
    await removeChannel(tx, id)
    const before = channelOnTrail({ ...row, url_hint: urlHint(row.url), has_secret: row.secret !== null })
    await recordNotifySettingsChange(tx, staff, { target: id, request: { change: "channel_removed", before, after: null } }, at)
  })
}

/**
 * Records a refused change of the settings (a body that fails validation, a channel that
 * is not there) and hands the error back to be thrown; an error that is not a refusal is
 * handed back unrecorded. What was sent is kept as the trail keeps a channel (never its
 * URL's path or its secret), or for the large-order sizes as sent. Writing the entry never
 * turns a refusal into a fault.
 */
export async function refusedSettingsChange(
  db: Db,
  staff: Staff,
  change: { target: string; change: "channel_add" | "channel_remove" | "large_order"; body: unknown },
  error: unknown,
  at = new Date(),
): Promise<unknown> {
  const problem = refusalProblem(error)
  if (!problem) return error
  const body = change.body
  const sent = body === null || body === undefined ? null : change.change === "large_order" ? asRequest(body) : typeof body === "object" ? channelOnTrail(body) : null
  try {
    await recordNotifySettingsChange(db, staff, { target: change.target.slice(0, 64), request: { change: change.change, sent }, problem }, at)
  } catch (failure) {
    log.error("refusal.unrecorded", { staff: staff.email, operation: "update_notifications", error: failure instanceof Error ? failure.name : "non-error thrown" })
  }
  return error
}
