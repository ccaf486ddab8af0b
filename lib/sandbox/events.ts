import "server-only"
import { type SQL, and, eq, gt, gte, lt, lte } from "drizzle-orm"
import type { Db } from "@/lib/db/client"
import { type SandboxEventRow, sandboxEvents } from "@/lib/db/schema"
import type { Tx } from "@/lib/sandbox/ledger"
import { isUuid, readPage } from "@/lib/sandbox/cursor"
import { timestamp } from "@/lib/sandbox/format"
import { timeOrderedId } from "@/lib/sandbox/ids"
import { badRequest, notFound } from "@/lib/sandbox/problems"
import { type EventListQuery, TIME_BOUNDS } from "@/lib/schemas/events-transfers"

/** An event as the service answers it (the reference's Event). */
export interface WireEvent {
  id: string
  type: string
  object_type: string
  object: Record<string, unknown>
  created_at: string
  undelivered_webhooks: number
}

export interface NewEvent {
  clientId: string
  type: string
  objectType: "orchestration_status_change" | "transfer_status_change"
  object: Record<string, unknown>
}

/**
 * Records an event in the caller's transaction, so it exists exactly when the change it
 * tells of is committed. Webhook delivery (lib/sandbox/webhooks.ts) picks it up from the table.
 */
export async function emitEvent(tx: Tx, event: NewEvent, now: Date): Promise<void> {
  await tx.insert(sandboxEvents).values({
    id: timeOrderedId(now),
    clientId: event.clientId,
    type: event.type,
    objectType: event.objectType,
    object: event.object,
    createdAt: now,
  })
}

/** A webhook counts as undelivered once an attempt failed or it was dropped, until one succeeds. */
export function wireEvent(row: SandboxEventRow): WireEvent {
  const undelivered = row.webhookDeliveredAt === null && (row.webhookAttempts > 0 || row.webhookAbandoned) ? 1 : 0
  return {
    id: row.id,
    type: row.type,
    object_type: row.objectType,
    object: row.object,
    created_at: timestamp(row.createdAt),
    undelivered_webhooks: undelivered,
  }
}

/** GET /v2/events and /v2/events/{id}: a client sees its own events. Every sandbox event is real (`is_test` false). */
export class EventLog {
  constructor(private readonly db: Db) {}

  async get(clientId: string, id: string, isTest: boolean): Promise<WireEvent> {
    if (!isUuid(id)) throw badRequest({ id: "error parsing event id" }, "error parsing event id")
    if (!isTest) {
      const [row] = await this.db
        .select()
        .from(sandboxEvents)
        .where(and(eq(sandboxEvents.clientId, clientId), eq(sandboxEvents.id, id.toLowerCase())))
      if (row) return wireEvent(row)
    }
    throw notFound(`event ${id} not found`)
  }

  async list(clientId: string, query: EventListQuery): Promise<{ events: WireEvent[]; next_page_cursor?: string }> {
    if (query.is_test === "true") return { events: [] }
    const t = sandboxEvents
    const filters: SQL[] = [eq(t.clientId, clientId)]
    if (query.type !== undefined) filters.push(eq(t.type, query.type))
    const ops = { lt, lte, eq, gte, gt }
    for (const key of TIME_BOUNDS) {
      const value = query[`created_at.${key}`]
      if (value !== undefined) filters.push(ops[key](t.createdAt, new Date(value)))
    }
    const page = await readPage(this.db, t, filters, { page_cursor: query.page_cursor, order: query.order ?? "ASC", limit: query.limit ?? 100 })
    const out: { events: WireEvent[]; next_page_cursor?: string } = { events: page.items.map(wireEvent) }
    if (page.next_page_cursor) out.next_page_cursor = page.next_page_cursor
    return out
  }
}
