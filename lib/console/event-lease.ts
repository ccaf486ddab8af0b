import "server-only"
import { sql } from "drizzle-orm"
import type { Db } from "@/lib/db/client"
import { queryRows } from "@/lib/db/rows"
import type { EventTx } from "@/lib/console/event-types"
import { log } from "@/lib/log"

/**
 * The election of the one event reader among the instances on a database: the lease row of
 * console_event_reader (id 1), taken or renewed on each tick and lost after `leaseMs` without
 * renewal, and the webhook hint left in it (wake_at) for whichever instance holds it. Alone on
 * its database (`solo`), the instance always holds it and writes nothing.
 */

/** The database's clock in milliseconds: every instance compares lease times on the one clock. */
const DB_NOW = sql`floor(extract(epoch from clock_timestamp()) * 1000)::bigint`

export class LeaseLost extends Error {
  constructor() {
    super("the event reader's lease went to another instance")
  }
}

export function createEventLease(options: { db: Db; id: string; solo: boolean; leaseMs: number }) {
  const { db, id, solo, leaseMs } = options
  let holder = solo

  return {
    /** Whether this instance held the lease when last it looked. */
    holds: (): boolean => holder,

    /** Forget the lease (a clean stop). */
    drop(): void {
      holder = false
    },

    /**
     * Takes or renews the lease. Answers whether this instance holds it, whether a hint asked
     * for a read, the cursor's time, and (when another instance reads) its last read.
     */
    async renew(): Promise<{ holder: boolean; woken: boolean; cursorAt: number | null; othersReadAt: number | null }> {
      if (solo) return { holder: true, woken: false, cursorAt: null, othersReadAt: null }
      const [row] = await queryRows<{
        holder: string | null
        wake_at: string | number | null
        cursor_at: string | Date | null
        last_read_at: string | Date | null
      }>(
        db,
        sql`update console_event_reader set
              holder = case when holder = ${id} or lease_until < ${DB_NOW} then ${id} else holder end,
              lease_until = case when holder = ${id} or lease_until < ${DB_NOW} then ${DB_NOW} + ${leaseMs} else lease_until end
            where id = 1 returning holder, wake_at, cursor_at, last_read_at`,
      )
      const was = holder
      holder = row?.holder === id
      if (holder !== was) log.info(holder ? "events.reader_started" : "events.reader_stopped", { instance: id })
      return {
        holder,
        woken: row?.wake_at !== null && row?.wake_at !== undefined,
        cursorAt: row?.cursor_at ? new Date(row.cursor_at).getTime() : null,
        othersReadAt: row?.last_read_at && !holder ? new Date(row.last_read_at).getTime() : null,
      }
    },

    /** In a processing transaction: locks the lease row and throws LeaseLost unless it is still this instance's. */
    async hold(tx: EventTx): Promise<void> {
      if (solo) return
      const [row] = await queryRows<{ holder: string | null }>(tx as Db, sql`select holder from console_event_reader where id = 1 for update`)
      if (row?.holder !== id) {
        holder = false
        throw new LeaseLost()
      }
    },

    /** At the start of a read: a hint that arrives from here on asks for the next read, not this one. */
    async clearHint(): Promise<void> {
      if (!solo) await db.execute(sql`update console_event_reader set wake_at = null where id = 1 and holder = ${id}`)
    },

    /** Leaves a hint for whichever instance reads (its next tick). */
    async hint(): Promise<void> {
      await db.execute(sql`update console_event_reader set wake_at = ${DB_NOW} where id = 1 and wake_at is null`)
    },

    /** Gives the lease up so another instance reads on its next tick. */
    async release(): Promise<void> {
      if (solo || !holder) return
      holder = false
      await db.execute(sql`update console_event_reader set lease_until = 0 where id = 1 and holder = ${id}`).catch(() => undefined)
    },
  }
}

export type EventLease = ReturnType<typeof createEventLease>
