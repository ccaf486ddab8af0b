import "server-only"
import { sql } from "drizzle-orm"
import { notify, resolveOpenOfKind, staffAtLeast } from "@/lib/console/notify/outbox"
import type { Db } from "@/lib/db/client"
import { queryRows } from "@/lib/db/rows"
import { log } from "@/lib/log"

/**
 * The event reader lagging: no read of the service's events has come through (by any
 * instance) for more than 5 minutes. Each such episode notifies the admins once (its
 * subject is the last read before it, which stays the same for as long as it lasts), and
 * is resolved for all of them once a read comes through again ("caught up"). Any instance
 * may check (the notification is one per subject, the resolution idempotent), so a reader
 * that died is noticed by the others; the check reads the database's clock, not this
 * instance's.
 */

export const EVENTS_LAG_MS = 5 * 60_000
export const EVENTS_LAG_CHECK_MS = 30_000

export type LagState = "lagging" | "caught_up" | "never_read"

export async function checkEventsLag(db: Db, at = new Date()): Promise<LagState> {
  const [row] = await queryRows<{ last_read_at: string | Date | null; behind_ms: string | number | null }>(
    db,
    sql`select last_read_at, floor(extract(epoch from (clock_timestamp() - last_read_at)) * 1000) as behind_ms from console_event_reader where id = 1`,
  )
  if (!row?.last_read_at || row.behind_ms === null) return "never_read"
  const lastRead = new Date(row.last_read_at)
  const behindMs = Number(row.behind_ms)
  if (behindMs <= EVENTS_LAG_MS) {
    const resolved = await resolveOpenOfKind(db, { kind: "events_lagging", by: "the event reader", what: "caught up", at })
    if (resolved > 0) log.info("events.caught_up", { lastReadAt: lastRead.toISOString() })
    return "caught_up"
  }
  await db.transaction(async (tx) => {
    const since = lastRead.toISOString()
    const id = await notify(tx, {
      kind: "events_lagging",
      subject: `since:${since}`,
      title: "The event reader is behind",
      detail: `No read of the service's events has come through since ${since.slice(0, 19).replace("T", " ")} UTC (more than ${EVENTS_LAG_MS / 60_000} minutes): orchestration outcomes, completed deposits and the notifications read from events wait until it catches up. This resolves itself when it does.`,
      href: "/events",
      recipients: await staffAtLeast(tx, "admin"),
      at,
    })
    if (id) log.warn("events.lagging", { lastReadAt: since, behindMs })
  })
  return "lagging"
}
