import "server-only"
import { sql } from "drizzle-orm"
import type { Db } from "@/lib/db/client"
import { queryRows } from "@/lib/db/rows"
import { log } from "@/lib/log"
import { metrics } from "@/lib/metrics"
import {
  DEFAULT_RATE_LIMITS,
  type Limiter,
  limitOf,
  type RateLimitBucket,
  instanceShare,
  RateLimitedError,
  RateLimiter,
  type RateLimits,
} from "@/lib/upstream"

export interface LimiterStatus {
  /**
   * shared: every instance counts against one budget in the database; local: this instance
   * lost the database and keeps its 1/N share; solo: the only instance there can be (PGlite)
   * keeps the whole budget in memory.
   */
  mode: "shared" | "local" | "solo"
  /** The instances the local share divides by (the last count the database gave). */
  instances: number
  /** When the limiter fell back to its local share (ms since the epoch); null while shared. */
  localSince: number | null
}

/**
 * How far apart one bucket's sends leave: the limit's even spacing plus 10% headroom
 * (110 ms between executions), and 1.5 s between token requests, which are rare
 * (one per instance per token lifetime) and limited to one per second with no burst.
 */
export function paceMs(limits: RateLimits, bucket: RateLimitBucket): number {
  const limit = limitOf(limits, bucket)
  if (!Number.isFinite(limit) || limit <= 0) return 0
  if (bucket === "token") return 1.5 * limits.windowMs
  return Math.ceil((limits.windowMs * 1.1) / limit)
}

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** An in-memory limiter's slot, its wait and any refusal counted in the metrics under `label`. */
async function acquireCounted(limiter: RateLimiter, bucket: RateLimitBucket, label: "local" | "solo"): Promise<number> {
  const m = metrics()
  try {
    const waited = await limiter.acquire(bucket)
    m.limiterWaits.observe({ bucket, limiter: label }, waited / 1000)
    return waited
  } catch (error) {
    if (error instanceof RateLimitedError) m.limiterRefused.inc({ bucket })
    throw error
  }
}

export interface SharedLimiter extends Limiter {
  status(): LimiterStatus
}

/**
 * The service's rate limits for a console that is alone on its database by construction
 * (PGlite: one process opens a data folder at a time): the whole budget, counted in memory
 * with the shared limiter's rules (the window, and sends paced `paceMs` apart), with no
 * database round trip before each service call.
 */
export function createSoloLimiter(options: { limits?: Partial<RateLimits>; now?: () => number; sleep?: (ms: number) => Promise<void> } = {}): SharedLimiter {
  const limits: RateLimits = { ...DEFAULT_RATE_LIMITS, ...options.limits }
  const limiter = new RateLimiter(limits, { now: options.now ?? Date.now, sleep: options.sleep ?? wait }, (bucket) => paceMs(limits, bucket))
  return {
    acquire: (bucket) => acquireCounted(limiter, bucket, "solo"),
    pauseUntil: (bucket, time) => limiter.pauseUntil(bucket, time),
    status: () => ({ mode: "solo", instances: 1, localSince: null }),
  }
}

/**
 * The service's rate limits for the sum of every console instance on one database: each
 * send reserves its slot in the bucket's row (`console_rate_acquire`), so an idle
 * instance's share is anyone's, and waiters are served in the order they reached the
 * database. When the database fails or does not answer within `databaseTimeoutMs`, the instance
 * falls back to a local limiter with 1/N of every limit (N: the instances last seen
 * alive) and tries the database again after `retryDatabaseAfterMs`.
 */
export function createSharedLimiter(options: {
  db: Db
  limits?: Partial<RateLimits>
  /** Live instances as last counted in the database (the fallback's N). */
  instances: () => number
  now?: () => number
  sleep?: (ms: number) => Promise<void>
  /** Tests: reserve on this clock instead of the database's. */
  databaseClock?: boolean
  databaseTimeoutMs?: number
  retryDatabaseAfterMs?: number
}): SharedLimiter {
  const limits: RateLimits = { ...DEFAULT_RATE_LIMITS, ...options.limits }
  const now = options.now ?? Date.now
  const sleep = options.sleep ?? wait
  const useDatabaseClock = options.databaseClock ?? true
  // A reservation is one short statement: a database that has not answered it in 1 s is
  // hung or its pool is taken, and every service call (a trader's quotes included) would
  // wait with it. Falling back early is safe: the local share (1/N) never sends more than
  // the shared budget. (3 s before: the hung-db replay's quotes p99 was 3.1 to 3.6 s.)
  const databaseTimeoutMs = options.databaseTimeoutMs ?? 1000
  const retryAfterMs = options.retryDatabaseAfterMs ?? 1000
  let local: { limiter: RateLimiter; since: number; instances: number; retryAt: number } | null = null

  function fallBack(error: unknown): RateLimiter {
    const t = now()
    if (local) {
      local.retryAt = t + retryAfterMs
      return local.limiter
    }
    const instances = Math.max(1, options.instances())
    local = {
      limiter: new RateLimiter(instanceShare(limits, instances), { now, sleep }),
      since: t,
      instances,
      retryAt: t + retryAfterMs,
    }
    log.warn("limiter.local", { instances, error: error instanceof Error ? error.message : String(error) })
    return local.limiter
  }

  async function reserve(bucket: RateLimitBucket): Promise<number> {
    const limit = limitOf(limits, bucket)
    const count = Number.isFinite(limit) && limit > 0 ? Math.floor(limit) : 0
    const clock = useDatabaseClock ? null : now()
    const query = queryRows<{ wait: string | number }>(
      options.db,
      sql`select console_rate_acquire(${bucket}, ${count}, ${limits.windowMs}, ${paceMs(limits, bucket)}, ${limits.maxWaitMs}, ${clock}::bigint) as wait`,
    )
    let timer: ReturnType<typeof setTimeout> | undefined
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the database did not answer within ${databaseTimeoutMs} ms`)), databaseTimeoutMs)
    })
    query.catch(() => undefined)
    try {
      const rows = await Promise.race([query, timeout])
      return Number(rows[0]?.wait)
    } finally {
      clearTimeout(timer)
    }
  }

  let probing: Promise<void> | null = null

  function backToShared(): void {
    if (!local) return
    log.info("limiter.shared", { localForMs: now() - local.since })
    local = null
  }

  /**
   * Falling back: the database is asked again (once per `retryAfterMs`) off the caller's
   * path, and the limiter is shared again once it answers. A caller never waits for a
   * database found slow (issue 34's replay: quote reads held up to 3 s each retry while the
   * pool's connections were taken). The probe's reservation is counted in the shared
   * budget too: the instances then send a little less than they may, never more.
   */
  function probe(bucket: RateLimitBucket, fallen: NonNullable<typeof local>): void {
    if (probing || now() < fallen.retryAt) return
    fallen.retryAt = now() + retryAfterMs
    probing = reserve(bucket)
      .then((waitMs) => {
        if (!Number.isFinite(waitMs)) throw new Error("console_rate_acquire answered no number")
        backToShared()
      })
      .catch((error: unknown) => void fallBack(error))
      .finally(() => {
        probing = null
      })
  }

  return {
    async acquire(bucket) {
      const m = metrics()
      if (local) {
        probe(bucket, local)
        return acquireCounted(local.limiter, bucket, "local")
      }
      let waitMs: number
      try {
        waitMs = await reserve(bucket)
        if (!Number.isFinite(waitMs)) throw new Error("console_rate_acquire answered no number")
      } catch (error) {
        return acquireCounted(fallBack(error), bucket, "local")
      }
      // Another caller may have fallen back while this one waited: the database answered.
      backToShared()
      if (waitMs < 0) {
        m.limiterRefused.inc({ bucket })
        throw new RateLimitedError(Math.max(1, Math.ceil(-waitMs / 1000)))
      }
      m.limiterWaits.observe({ bucket, limiter: "shared" }, waitMs / 1000)
      if (waitMs > 0) await sleep(waitMs)
      return waitMs
    },

    pauseUntil(bucket, time) {
      const ms = Math.max(0, Math.ceil(time - now()))
      local?.limiter.pauseUntil(bucket, time)
      const clock = useDatabaseClock ? null : now()
      options.db.execute(sql`select console_rate_pause(${bucket}, ${ms}, ${clock}::bigint)`).catch((error: unknown) => {
        // The local share holds the pause meanwhile; the next acquire finds the database gone.
        fallBack(error).pauseUntil(bucket, time)
      })
    },

    status() {
      return local
        ? { mode: "local", instances: local.instances, localSince: local.since }
        : { mode: "shared", instances: Math.max(1, options.instances()), localSince: null }
    },
  }
}
