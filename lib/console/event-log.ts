import "server-only"
import { type SQL, and, desc, eq, gte, like, lt, sql } from "drizzle-orm"
import { z } from "zod"
import type { EventReader } from "@/lib/console/event-reader"
import { unprocessedEvents } from "@/lib/console/metrics-sources"
import type { Db } from "@/lib/db/client"
import { throughMillisecond } from "@/lib/db/time"
import { type ConsoleEventRow, consoleEvents } from "@/lib/db/schema"
import type { EventLogEntry, EventLogPage, EventLogQuery } from "@/lib/schemas/events"
import { conversionPath, transferPath } from "@/lib/record-paths"

const cursorSchema = z.object({ t: z.string().regex(/^\d{4}-\d{2}-\d{2}T[\d:.]+Z$/), i: z.string().min(1).max(200) })

function decodeCursor(cursor: string): { t: string; i: string } {
  try {
    return cursorSchema.parse(JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")))
  } catch {
    throw new z.ZodError([{ code: "custom", path: ["page_cursor"], message: "is not a cursor this console issued", input: cursor }])
  }
}

const createdAtText = sql<string>`to_char(${consoleEvents.createdAt} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`

/** Where the console shows an event's object: an orchestration's page (the conversions desk's record page), a transfer's record page. */
function objectHref(row: ConsoleEventRow): string | null {
  if (!row.objectId) return null
  if (row.type.startsWith("orchestration.")) return conversionPath(row.objectId)
  if (row.type.startsWith("transfer.")) return transferPath(row.objectId)
  return null
}

export function eventLogEntry(row: ConsoleEventRow): EventLogEntry {
  return {
    id: row.id,
    type: row.type,
    object_type: row.objectType,
    object_id: row.objectId,
    object_href: objectHref(row),
    created_at: row.createdAt.toISOString(),
    read_at: row.readAt.toISOString(),
    status: row.status,
    attempts: row.attempts,
    last_error: row.lastError,
    next_attempt_at: row.nextAttemptAt?.toISOString() ?? null,
    processed_at: row.processedAt?.toISOString() ?? null,
    processed_by: row.processedBy,
    replays: row.replays,
    undelivered_webhooks: row.undeliveredWebhooks,
    effects: row.effects,
  }
}

/** The event log, newest first, filtered, in pages with an opaque cursor; with the reader's state. */
export async function listEventLog(db: Db, reader: EventReader | null, query: EventLogQuery): Promise<EventLogPage> {
  const where: SQL[] = []
  if (query.type) where.push(query.type.endsWith(".") ? like(consoleEvents.type, `${query.type.replace(/[\\%_]/g, "\\$&")}%`) : eq(consoleEvents.type, query.type))
  if (query.status) where.push(eq(consoleEvents.status, query.status))
  if (query.from) where.push(gte(consoleEvents.createdAt, new Date(query.from)))
  if (query.to) where.push(lt(consoleEvents.createdAt, throughMillisecond(new Date(query.to))))
  if (query.page_cursor) {
    const { t, i } = decodeCursor(query.page_cursor)
    where.push(sql`(${consoleEvents.createdAt}, ${consoleEvents.id}) < (${t}::timestamptz, ${i})`)
  }
  const rows = await db
    .select({ row: consoleEvents, createdAtText })
    .from(consoleEvents)
    .where(where.length > 0 ? and(...where) : undefined)
    .orderBy(desc(consoleEvents.createdAt), desc(consoleEvents.id))
    .limit(query.limit + 1)
  const page = rows.slice(0, query.limit)
  const last = page.at(-1)
  if (reader) await reader.refreshLag()
  const status = reader?.status()
  return {
    items: page.map(({ row }) => eventLogEntry(row)),
    ...(rows.length > query.limit && last ? { next_page_cursor: Buffer.from(JSON.stringify({ t: last.createdAtText, i: last.row.id })).toString("base64url") } : {}),
    reader: {
      mode: status?.mode ?? "off",
      lag_seconds: status?.lagSeconds ?? null,
      last_read_seconds: status?.lastReadSeconds ?? null,
      ...(await unprocessedEvents(db)),
    },
  }
}
