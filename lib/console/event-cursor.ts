import "server-only"
import { sql } from "drizzle-orm"
import type { Db } from "@/lib/db/client"
import { queryRows } from "@/lib/db/rows"
import type { EventTx, StoredEvent } from "@/lib/console/event-types"

/**
 * The event reader's cursor in console_event_reader (id 1): the (created_at, id) of the
 * latest event processed or recorded, and when any instance last read the service.
 */

export async function readCursor(db: Db): Promise<{ at: Date | null; id: string | null; lastReadAt: Date | null }> {
  const [row] = await queryRows<{ cursor_at: string | Date | null; cursor_id: string | null; last_read_at: string | Date | null }>(
    db,
    sql`select cursor_at, cursor_id, last_read_at from console_event_reader where id = 1`,
  )
  return { at: row?.cursor_at ? new Date(row.cursor_at) : null, id: row?.cursor_id ?? null, lastReadAt: row?.last_read_at ? new Date(row.last_read_at) : null }
}

/** In the event's transaction: the cursor moves to the event when it is later than the cursor, in (created_at, id) order. */
export async function advanceCursor(tx: EventTx, event: StoredEvent): Promise<void> {
  const at = event.createdAt.toISOString()
  await tx.execute(
    sql`update console_event_reader set cursor_at = ${at}::timestamptz, cursor_id = ${event.id}
        where id = 1 and (cursor_at is null or (cursor_at, cursor_id) < (${at}::timestamptz, ${event.id}))`,
  )
}

/** A read of the service finished (whoever made it). */
export async function markRead(db: Db): Promise<void> {
  await db.execute(sql`update console_event_reader set last_read_at = now() where id = 1`)
}
