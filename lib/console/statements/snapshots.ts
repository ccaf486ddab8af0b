import "server-only"
import { and, asc, eq, gte, lte, sql } from "drizzle-orm"
import type { Db } from "@/lib/db/client"
import { type BalanceSnapshotRow, type SnapshotBalance, consoleBalanceSnapshots } from "@/lib/db/schema"
import { queryRows } from "@/lib/db/rows"
import { errorKind, log } from "@/lib/log"
import type { ProfileOperations } from "@/lib/upstream/operations"

/**
 * Balance snapshots: every profile's balances as the service answered them, the observed
 * ends of a statement's day. The service has no historical balance API, so a cutoff that
 * passed while no instance ran cannot be observed afterwards: the job takes the latest
 * missed cutoff's snapshot as soon as it can (labelled with that cutoff, read at the time
 * it was taken) and never invents one for an older cutoff.
 */

const DAY_MS = 86_400_000
const DB_NOW = sql`floor(extract(epoch from clock_timestamp()) * 1000)::bigint`

/** The UTC cutoff at or before `at` (00:00 UTC of its day). */
export function cutoffAtOrBefore(at: number): Date {
  return new Date(Math.floor(at / DAY_MS) * DAY_MS)
}

/** Every profile's balances now, asked of the service profile by profile (all pages of profiles). */
export async function readAllBalances(upstream: Pick<ProfileOperations, "listProfiles" | "listBalances">): Promise<Record<string, SnapshotBalance[]>> {
  const out: Record<string, SnapshotBalance[]> = {}
  let cursor: string | undefined
  do {
    const page = await upstream.listProfiles({ limit: 100, page_cursor: cursor })
    for (const profile of page.items) {
      const balances = await upstream.listBalances(profile.id)
      out[profile.id] = balances.map((b) => ({ asset: b.asset, available: b.available, trading: b.trading }))
    }
    cursor = page.next_page_cursor
  } while (cursor)
  return out
}

/**
 * Asks the service for every balance and stores the snapshot. For a cutoff, a second
 * instance's (or a second tick's) insert meets the unique index and stores nothing: null.
 */
export async function takeSnapshot(
  db: Db,
  upstream: Pick<ProfileOperations, "listProfiles" | "listBalances">,
  input: { cutoff: Date | null; takenBy: string; now?: () => Date },
): Promise<BalanceSnapshotRow | null> {
  const balances = await readAllBalances(upstream)
  const takenAt = (input.now ?? (() => new Date()))()
  const [row] = await db
    .insert(consoleBalanceSnapshots)
    .values({ cutoff: input.cutoff, takenAt, takenBy: input.takenBy, balances })
    .onConflictDoNothing()
    .returning()
  return row ?? null
}

/** Snapshots read between `from` and `to` (inclusive), oldest first. */
export function snapshotsBetween(db: Db, from: Date, to: Date): Promise<BalanceSnapshotRow[]> {
  const s = consoleBalanceSnapshots
  return db.select().from(s).where(and(gte(s.takenAt, from), lte(s.takenAt, to))).orderBy(asc(s.takenAt), asc(s.id))
}

export interface SnapshotJob {
  start(): void
  /** One tick now (tests, and the first tick at start): takes the latest cutoff's snapshot if this instance holds the lease and it is missing. */
  tick(): Promise<BalanceSnapshotRow | null>
  stop(): Promise<void>
}

export const SNAPSHOT_JOB_DEFAULTS = {
  /** A cutoff's snapshot is taken within this long of the cutoff (or of the start after it). */
  tickMs: 15_000,
  /** Lost after this long without renewal: another instance takes the next tick. */
  leaseMs: 45_000,
} as const

/**
 * The one instance that takes the scheduled snapshots: whoever holds the lease row of
 * console_snapshot_job (the event reader's and quotes poller's election: renewed each tick,
 * lost after `leaseMs`). Each tick, the holder takes the latest cutoff's snapshot when the
 * database has none, so the first tick after a start catches up on a cutoff that passed
 * while no instance ran. Alone on its database (PGlite), the instance takes them with no lease.
 * Once the cutoff's snapshot is stored, `tieOut` checks the day it closes (a difference
 * notifies the admins), until it has been checked once.
 */
export function createSnapshotJob(options: {
  db: Db
  id: string
  upstream: Pick<ProfileOperations, "listProfiles" | "listBalances">
  solo: boolean
  tickMs?: number
  leaseMs?: number
  now?: () => number
  /** Ties out the day a cutoff's snapshot closes (lib/console/notify/statements.ts), once it is stored. */
  tieOut?: (snapshot: BalanceSnapshotRow, now: Date) => Promise<unknown>
}): SnapshotJob {
  const tickMs = options.tickMs ?? SNAPSHOT_JOB_DEFAULTS.tickMs
  const leaseMs = options.leaseMs ?? SNAPSHOT_JOB_DEFAULTS.leaseMs
  const now = options.now ?? Date.now
  const { db, id, upstream, solo } = options
  let timer: ReturnType<typeof setInterval> | null = null
  let ticking: Promise<BalanceSnapshotRow | null> | null = null
  let holder = solo

  async function lease(): Promise<boolean> {
    if (solo) return true
    const [row] = await queryRows<{ holder: string | null }>(
      db,
      sql`update console_snapshot_job set
            holder = case when holder = ${id} or lease_until < ${DB_NOW} then ${id} else holder end,
            lease_until = case when holder = ${id} or lease_until < ${DB_NOW} then ${DB_NOW} + ${leaseMs} else lease_until end
          where id = 1 returning holder`,
    )
    const was = holder
    holder = row?.holder === id
    if (holder !== was) log.info(holder ? "snapshots.job_started" : "snapshots.job_stopped", { instance: id })
    return holder
  }

  async function tickOnce(): Promise<BalanceSnapshotRow | null> {
    if (!(await lease())) return null
    const cutoff = cutoffAtOrBefore(now())
    const [existing] = await db.select().from(consoleBalanceSnapshots).where(eq(consoleBalanceSnapshots.cutoff, cutoff)).limit(1)
    const row = existing ? null : await takeSnapshot(db, upstream, { cutoff, takenBy: `job:${id}`, now: () => new Date(now()) })
    if (row) log.info("snapshots.taken", { cutoff: cutoff.toISOString(), takenAt: row.takenAt.toISOString(), profiles: Object.keys(row.balances).length })
    // The day the cutoff closes is tied out once its snapshot is stored; a check that failed is tried again next tick.
    const stored = existing ?? row
    if (options.tieOut && stored && !stored.tieOutCheckedAt) {
      await options.tieOut(stored, new Date(now())).catch((error: unknown) => log.warn("snapshots.tie_out_failed", { error: errorKind(error) }))
    }
    return row
  }

  function tick(): Promise<BalanceSnapshotRow | null> {
    ticking ??= tickOnce()
      .catch((error: unknown) => {
        log.warn("snapshots.tick_failed", { error: errorKind(error) })
        return null
      })
      .finally(() => {
        ticking = null
      })
    return ticking
  }

  return {
    start() {
      if (timer) return
      void tick()
      timer = setInterval(() => void tick(), tickMs)
      timer.unref()
    },
    tick,
    async stop() {
      if (timer) clearInterval(timer)
      timer = null
      await ticking
      if (!solo && holder) await db.execute(sql`update console_snapshot_job set holder = null, lease_until = 0 where id = 1 and holder = ${id}`)
      holder = solo
    },
  }
}

/** What the API answers about a snapshot (its balances are read through a statement). */
export function snapshotSummary(row: BalanceSnapshotRow): { id: string; cutoff: string | null; taken_at: string; taken_by: string; profiles: number } {
  return {
    id: row.id,
    cutoff: row.cutoff ? row.cutoff.toISOString() : null,
    taken_at: row.takenAt.toISOString(),
    taken_by: row.takenBy.startsWith("job:") ? "scheduled" : row.takenBy,
    profiles: Object.keys(row.balances).length,
  }
}
