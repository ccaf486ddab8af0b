import "server-only"
import { sql } from "drizzle-orm"
import { z } from "zod"
import type { QuoteCache, QuoteSnapshot } from "@/lib/console/quote-cache"
import { purgeServedQuotes } from "@/lib/console/served-quotes"
import type { Db } from "@/lib/db/client"
import { queryRows } from "@/lib/db/rows"
import { log } from "@/lib/log"
import { type Quote, quoteSchema } from "@/lib/schemas/records"
import { UpstreamUnavailableError } from "@/lib/upstream"

const snapshotSchema = z.object({
  quotes: z.array(quoteSchema),
  fetchedAt: z.number(),
  stale: z.boolean(),
  markets: z.array(z.string()),
})

const DB_NOW = sql`floor(extract(epoch from clock_timestamp()) * 1000)::bigint`

/** Where the console's readers get held quotes: the one poller of every instance, or this instance alone. */
export interface QuoteSource {
  /** Held quotes of `markets` (null or empty: every market). */
  get(markets?: readonly string[] | null): Promise<QuoteSnapshot>
  /** A quote served to a reader that has not expired; null otherwise. */
  held(quoteId: string): Quote | null
  status(): QuoteFeedStatus
  /** A clean shutdown: stops polling and gives any lease up. */
  stop(): Promise<void>
}

export interface QuoteFeedStatus {
  /** This instance holds the lease: it is the one asking the service. */
  poller: boolean
  /** Age of the newest quotes this instance has, in seconds; null before any. */
  ageSeconds: number | null
  /** The database could not be reached: this instance asks the service itself meanwhile. */
  local: boolean
}

/**
 * One quotes poller for every instance on the database. Whoever holds the lease row of
 * console_quote_feed (renewed every `tickMs`, lost after `leaseMs` without renewal) asks
 * the service through its quote cache (at most once per second) and writes each new answer
 * to the row; every other instance serves its readers from that row. Readers anywhere
 * keep `wanted_until` ahead, so nobody polls when nobody reads. A poller that dies stops
 * renewing; the next tick of any instance with readers takes the lease over. Without the
 * database, an instance falls back to its own quote cache.
 */
export function createQuoteFeed(options: {
  db: Db
  /** This instance's id (console_instances). */
  id: string
  /** The local cache that asks the service, used while this instance polls. */
  cache: QuoteCache
  leaseMs?: number
  tickMs?: number
  /** How long a read keeps the poller polling. */
  wantedMs?: number
  /** A follower serves a snapshot younger than this without waiting for a newer one. */
  freshMs?: number
  /** How long a follower waits for a poller before it gives up. */
  waitForPollerMs?: number
  now?: () => number
}) {
  const leaseMs = options.leaseMs ?? 2000
  const tickMs = options.tickMs ?? 250
  const wantedMs = options.wantedMs ?? 30_000
  const freshMs = options.freshMs ?? 2500
  const waitForPollerMs = options.waitForPollerMs ?? 4000
  const now = options.now ?? Date.now
  const { db, id, cache } = options

  let poller = false
  let wantedUntil = 0
  let latest: { version: number; snapshot: QuoteSnapshot } | null = null
  let publishedAt = 0
  let timer: ReturnType<typeof setInterval> | null = null
  let ticking: Promise<void> | null = null
  let lastWanted = 0
  let local = false
  let stopped = false

  async function publish(snapshot: QuoteSnapshot): Promise<void> {
    if (snapshot.fetchedAt === publishedAt) return
    publishedAt = snapshot.fetchedAt
    const [row] = await queryRows<{ version: string | number }>(
      db,
      sql`update console_quote_feed set snapshot = ${JSON.stringify(snapshot)}::jsonb, version = version + 1
          where id = 1 and holder = ${id} returning version`,
    )
    const version = row?.version
    if (version !== undefined) latest = { version: Number(version), snapshot }
  }

  /** Takes or renews the lease; the poller refreshes and publishes while anyone reads. */
  async function tickOnce(): Promise<void> {
    const [row] = await queryRows<{ holder: string | null; wanted_until: string | number }>(
      db,
      sql`update console_quote_feed set
            holder = case when holder = ${id} or lease_until < ${DB_NOW} then ${id} else holder end,
            lease_until = case when holder = ${id} or lease_until < ${DB_NOW} then ${DB_NOW} + ${leaseMs} else lease_until end
          where id = 1 returning holder, wanted_until`,
    )
    const wasPoller = poller
    poller = row?.holder === id
    wantedUntil = Number(row?.wanted_until ?? 0)
    if (poller !== wasPoller) log.info(poller ? "quotes.poller_started" : "quotes.poller_stopped", { instance: id })
    local = false
    const wanted = wantedUntil > now()
    if (poller && wanted) {
      let snapshot: QuoteSnapshot | null = null
      try {
        snapshot = await cache.get(null)
      } catch {
        // The service failed and nothing held is left: readers see the old row go stale.
      }
      if (snapshot) await publish(snapshot)
    }
    // The served quotes past their remembering go, by the lease holder, off every request.
    if (poller) void purgeServedQuotes(db)
    if (!wanted) stopLoop(true)
  }

  function tick(): Promise<void> {
    ticking ??= tickOnce()
      .catch((error: unknown) => {
        if (!local) log.warn("quotes.feed_unavailable", { error: error instanceof Error ? error.message : String(error) })
        local = true
      })
      .finally(() => {
        ticking = null
      })
    return ticking
  }

  function startLoop(): void {
    if (timer || stopped) return
    timer = setInterval(() => void tick(), tickMs)
    timer.unref?.()
  }

  function stopLoop(release: boolean): void {
    if (timer) clearInterval(timer)
    timer = null
    if (release && poller) {
      poller = false
      db.execute(sql`update console_quote_feed set lease_until = 0 where id = 1 and holder = ${id}`).catch(() => undefined)
    }
  }

  async function markWanted(): Promise<void> {
    const t = now()
    if (t - lastWanted < 1000 && wantedUntil > t) return
    lastWanted = t
    await db.execute(sql`update console_quote_feed set wanted_until = greatest(wanted_until, ${DB_NOW} + ${wantedMs}) where id = 1`)
    wantedUntil = Math.max(wantedUntil, t + wantedMs)
  }

  let reading: Promise<void> | null = null
  let readAt = Number.NEGATIVE_INFINITY

  /** The row's newest snapshot; readers arriving together share one query, and at most one per `tickMs / 2`. */
  function readRow(): Promise<void> {
    if (reading) return reading
    if (now() - readAt < tickMs / 2) return Promise.resolve()
    reading = readRowOnce().finally(() => {
      readAt = now()
      reading = null
    })
    return reading
  }

  async function readRowOnce(): Promise<void> {
    const [row] = await queryRows<{ version: string | number; snapshot: unknown }>(
      db,
      sql`select version, snapshot from console_quote_feed where id = 1`,
    )
    if (!row || row.snapshot === null || Number(row.version) === latest?.version) return
    const raw: unknown = typeof row.snapshot === "string" ? JSON.parse(row.snapshot) : row.snapshot
    const parsed = snapshotSchema.safeParse(raw)
    if (parsed.success) latest = { version: Number(row.version), snapshot: parsed.data }
  }

  const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

  /** Quotes served from the shared row, by id, until they expire (the local cache remembers its own). */
  const served = new Map<string, Quote>()

  function serve(snapshot: QuoteSnapshot, markets: readonly string[] | null): QuoteSnapshot {
    const wanted = markets && markets.length > 0 ? new Set(markets) : null
    const t = now()
    for (const [quoteId, q] of served) if (Date.parse(q.expires_at) <= t) served.delete(quoteId)
    for (const q of snapshot.quotes) if (Date.parse(q.expires_at) > t) served.set(q.id, q)
    const tooOld = t - snapshot.fetchedAt > freshMs
    const quotes = snapshot.quotes.filter((q) => (!wanted || wanted.has(q.market)) && (!tooOld || Date.parse(q.expires_at) > t))
    return { ...snapshot, quotes, stale: snapshot.stale || tooOld }
  }

  return {
    /** Held quotes of `markets` (null or empty: every market), from the one poller of all instances. */
    async get(markets: readonly string[] | null = null): Promise<QuoteSnapshot> {
      if (stopped) return cache.get(markets)
      try {
        if (!timer) {
          await markWanted()
          startLoop()
          await tick()
        } else {
          // Polling already: the reader's mark is written on its own, and a database slow to
          // take it (no free connection) never holds the quotes back (issue 34's replay: up to
          // 3.7 s at p99 while console_intents was locked and the creates held the pool).
          markWanted().catch(() => {
            local = true
          })
        }
      } catch {
        local = true
      }
      if (local) return cache.get(markets)
      if (poller) {
        const snapshot = await cache.get(markets)
        publish(await cache.get(null)).catch(() => undefined)
        return snapshot
      }
      const deadline = now() + waitForPollerMs
      for (;;) {
        try {
          await readRow()
        } catch {
          return cache.get(markets)
        }
        if (latest && now() - latest.snapshot.fetchedAt <= freshMs) return serve(latest.snapshot, markets)
        // No fresh quotes: the poller may have died. The next tick takes the lease once it lapses.
        if (poller) return cache.get(markets)
        if (now() > deadline) {
          if (latest) return serve(latest.snapshot, markets)
          throw new UpstreamUnavailableError("no instance is polling quotes yet", { operation: "listQuotes", outcome: "rejected" })
        }
        await sleep(Math.min(200, tickMs))
        if (local) return cache.get(markets)
      }
    },

    /** A quote this instance has served (from the shared row or its own cache) that has not expired; null otherwise. */
    held(quoteId: string): Quote | null {
      const quote = served.get(quoteId)
      if (quote && Date.parse(quote.expires_at) > now()) return quote
      return cache.held(quoteId)
    },

    status(): QuoteFeedStatus {
      const fetchedAt = latest?.snapshot.fetchedAt
      return { poller, ageSeconds: fetchedAt === undefined ? null : Math.max(0, (now() - fetchedAt) / 1000), local }
    },

    /** Stops polling and gives the lease up (a clean shutdown); `get` asks the service itself afterwards. */
    async stop(): Promise<void> {
      stopped = true
      stopLoop(false)
      if (poller) {
        poller = false
        await db.execute(sql`update console_quote_feed set lease_until = 0 where id = 1 and holder = ${id}`).catch(() => undefined)
      }
    },

    /** Tests: this instance dies where it stands (no more ticks, lease left to lapse). */
    halt(): void {
      stopped = true
      stopLoop(false)
    },
  }
}

export type QuoteFeed = ReturnType<typeof createQuoteFeed>

/**
 * Quotes for a console that is alone on its database by construction (PGlite: one process
 * opens a data folder at a time): readers are served by the local cache, which asks the
 * service at most once per second, with no lease to renew and no row to publish to.
 */
export function createSoloQuoteFeed(cache: QuoteCache, now: () => number = Date.now, db?: Db): QuoteSource {
  let fetchedAt: number | null = null
  return {
    async get(markets = null) {
      const snapshot = await cache.get(markets)
      // Alone on its database, this instance is the one that purges (at most once a minute, never awaited).
      if (db) void purgeServedQuotes(db)
      fetchedAt = snapshot.fetchedAt
      return snapshot
    },
    held: (quoteId) => cache.held(quoteId),
    status: () => ({ poller: true, ageSeconds: fetchedAt === null ? null : Math.max(0, (now() - fetchedAt) / 1000), local: false }),
    // Nothing polls between reads and nothing is held in the database.
    stop: () => Promise.resolve(),
  }
}
