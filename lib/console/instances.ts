import "server-only"
import { randomUUID } from "node:crypto"
import { sql } from "drizzle-orm"
import type { Db } from "@/lib/db/client"
import { queryRows } from "@/lib/db/rows"

/** An instance unseen this long is gone. */
export const INSTANCE_ALIVE_MS = 5000
const HEARTBEAT_MS = 1000

/** This console instance's row in console_instances, seen every second, and the count of live ones. */
export function createInstanceRegistry(db: Db, id: string = randomUUID()) {
  let live = 1
  let timer: ReturnType<typeof setInterval> | null = null

  async function beat(): Promise<number> {
    const now = sql`floor(extract(epoch from clock_timestamp()) * 1000)::bigint`
    await db.execute(
      sql`insert into console_instances (id, seen_at) values (${id}, ${now}) on conflict (id) do update set seen_at = excluded.seen_at`,
    )
    const [row] = await queryRows<{ live: string | number }>(
      db,
      sql`select count(*) as live from console_instances where seen_at > ${now} - ${INSTANCE_ALIVE_MS}`,
    )
    live = Math.max(1, Number(row?.live ?? 1))
    // Rows of instances gone for a day are of no use to anyone.
    await db.execute(sql`delete from console_instances where seen_at < ${now} - 86400000`)
    return live
  }

  return {
    id,
    /** Live instances at the last heartbeat (this one included). */
    live: () => live,
    beat,
    start() {
      if (timer) return
      const tick = () => void beat().catch(() => undefined)
      tick()
      timer = setInterval(tick, HEARTBEAT_MS)
      timer.unref()
    },
    /** Stops the heartbeat and removes this instance's row (a clean shutdown). */
    async stop() {
      if (timer) clearInterval(timer)
      timer = null
      await db.execute(sql`delete from console_instances where id = ${id}`).catch(() => undefined)
    },
  }
}

export type InstanceRegistry = ReturnType<typeof createInstanceRegistry>

/**
 * The only instance there can be: on PGlite one process opens the data folder at a time,
 * so there is nobody to count and no row to keep.
 */
export function createSoloInstance(id: string = randomUUID()): InstanceRegistry {
  return {
    id,
    live: () => 1,
    beat: () => Promise.resolve(1),
    start() {},
    stop: () => Promise.resolve(),
  }
}
