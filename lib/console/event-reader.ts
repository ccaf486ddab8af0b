import "server-only"
import { and, asc, eq, inArray, lte, sql } from "drizzle-orm"
import type { Db } from "@/lib/db/client"
import { type ConsoleEventRow, consoleEvents } from "@/lib/db/schema"
import { queryRows } from "@/lib/db/rows"
import { log } from "@/lib/log"
import type { ServiceEvent, UpstreamClient } from "@/lib/upstream"

/** What a transaction of the reader can do (a Db or the transaction drizzle hands over). */
export type EventTx = Pick<Db, "select" | "insert" | "update" | "delete" | "execute">

/** The event as the console keeps it: what a handler reads, on the first processing and on a replay. */
export interface StoredEvent {
  id: string
  type: string
  objectType: string | null
  object: Record<string, unknown>
  createdAt: Date
}

/**
 * What processing an event does. `apply` runs inside the transaction that records the event
 * and moves the cursor, and must change nothing a second time when called again for the same
 * event (a replay): it answers what it changed, stored with the event. `prepare` runs before
 * the transaction (a read of the service, say); a failure of either is retried, then parked.
 * `afterCommit` runs once the transaction is committed (refresh a cache); its failure is logged.
 */
export interface EventHandler {
  prepare?(event: StoredEvent): Promise<unknown>
  apply(tx: EventTx, event: StoredEvent, prepared: unknown, at: Date): Promise<Record<string, unknown>>
  afterCommit?(event: StoredEvent, effects: Record<string, unknown>): void
}

export interface EventReaderStatus {
  /** This instance holds the lease (or is alone on its database): it is the one reading. */
  reader: boolean
  /** Seconds since the newest event read was created; null before any. */
  lagSeconds: number | null
  /** Seconds since the reader last asked the service; null before any. */
  lastReadSeconds: number | null
  /**
   * No successful read by any instance for `staleMs` (or none since this instance started
   * that long ago): nobody holds the lease, or the reads fail. Not the lag, which also grows
   * on a quiet day with no events.
   */
  behind: boolean
  mode: "solo" | "shared" | "off"
}

export const EVENT_READER_DEFAULTS = {
  pollMs: 5000,
  /** The lease is renewed every second and lost after 3 s without renewal: another instance takes over within about 4 s. */
  leaseMs: 3000,
  tickMs: 1000,
  /** Each read goes back this far before the cursor, so an event committed late with an earlier time is not skipped. */
  overlapMs: 5000,
  pageSize: 100,
  maxPagesPerRead: 20,
  /** Failed processings: the tries before the event is parked, and the first wait (doubled each time). */
  maxAttempts: 4,
  retryBaseMs: 1000,
  /** Webhook hints wake the reader, at most one read per this long (whatever the number of hints). */
  wakeGapMs: 500,
  /** Without a successful read this long, the reader is behind (EVENTS_STALE_MS). */
  staleMs: 60_000,
} as const

const DB_NOW = sql`floor(extract(epoch from clock_timestamp()) * 1000)::bigint`

class LeaseLost extends Error {
  constructor() {
    super("the event reader's lease went to another instance")
  }
}

function stored(event: ServiceEvent): StoredEvent {
  return {
    id: event.id,
    type: event.type,
    objectType: event.object_type ?? null,
    object: event.object ?? {},
    createdAt: new Date(event.created_at),
  }
}

export function storedFromRow(row: ConsoleEventRow): StoredEvent {
  return { id: row.id, type: row.type, objectType: row.objectType, object: row.object ?? {}, createdAt: row.createdAt }
}

function objectIdOf(event: StoredEvent): string | null {
  const id = event.object.id
  return typeof id === "string" ? id : null
}

const reason = (error: unknown) => (error instanceof Error ? `${error.name}: ${error.message}` : String(error)).slice(0, 500)

/**
 * The one reader of the service's events for every instance on the database. Whoever holds
 * the lease row of console_event_reader (renewed every `tickMs`, lost after `leaseMs`)
 * reads GET /v2/events ascending from the cursor kept in that row, every `pollMs` or sooner
 * when a webhook hint wakes it, and processes each event exactly once: the event's id is
 * the key of console_events, and the row, what the handler applies and the cursor's move
 * are one transaction, which also checks the lease is still this instance's (an instance
 * that lost it mid-read writes nothing). Ties on created_at: each read starts `overlapMs`
 * before the cursor with created_at.gte, and events already recorded are skipped by id.
 * A processing that fails is recorded (retrying, with the reason) and tried again with
 * backoff, then parked after `maxAttempts`: visible on /events, never lost, replayable.
 * Alone on its database (PGlite), the instance reads with no lease.
 */
export function createEventReader(options: {
  db: Db
  /** This instance's id (console_instances); written as processed_by. */
  id: string
  upstream: Pick<UpstreamClient, "listEvents">
  handler: EventHandler
  /** Alone on the database by construction: no lease. */
  solo: boolean
  pollMs?: number
  leaseMs?: number
  tickMs?: number
  overlapMs?: number
  pageSize?: number
  maxPagesPerRead?: number
  maxAttempts?: number
  retryBaseMs?: number
  wakeGapMs?: number
  staleMs?: number
  now?: () => number
}) {
  const d = EVENT_READER_DEFAULTS
  const pollMs = options.pollMs ?? d.pollMs
  const leaseMs = options.leaseMs ?? d.leaseMs
  const tickMs = Math.min(options.tickMs ?? d.tickMs, pollMs)
  const overlapMs = options.overlapMs ?? d.overlapMs
  const pageSize = options.pageSize ?? d.pageSize
  const maxPages = options.maxPagesPerRead ?? d.maxPagesPerRead
  const maxAttempts = options.maxAttempts ?? d.maxAttempts
  const retryBaseMs = options.retryBaseMs ?? d.retryBaseMs
  const wakeGapMs = options.wakeGapMs ?? d.wakeGapMs
  const staleMs = options.staleMs ?? d.staleMs
  const now = options.now ?? Date.now
  const createdAt = now()
  const { db, id, upstream, handler, solo } = options

  let holder = solo
  let timer: ReturnType<typeof setInterval> | null = null
  let wakeTimer: ReturnType<typeof setTimeout> | null = null
  let stopped = false
  let ticking: Promise<void> | null = null
  let reading: Promise<number> | null = null
  let readAgain = false
  let lastReadStart = Number.NEGATIVE_INFINITY
  let lastReadAt: number | null = null
  let cursorAt: number | null = null
  let reads = 0

  /** Takes or renews the lease; answers whether this instance holds it and whether a hint asked for a read. */
  async function lease(): Promise<{ holder: boolean; woken: boolean }> {
    if (solo) return { holder: true, woken: false }
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
    if (row?.cursor_at) cursorAt = new Date(row.cursor_at).getTime()
    // Whoever read last, as this instance's clock sees it (for `covering`).
    if (row?.last_read_at && !holder) lastReadAt = Math.max(lastReadAt ?? 0, new Date(row.last_read_at).getTime())
    if (holder !== was) log.info(holder ? "events.reader_started" : "events.reader_stopped", { instance: id })
    return { holder, woken: row?.wake_at !== null && row?.wake_at !== undefined }
  }

  async function tickOnce(): Promise<void> {
    const { holder: mine, woken } = await lease()
    if (!mine || stopped) return
    if (woken || now() - lastReadStart >= pollMs) await read()
    await retryDue()
  }

  function tick(): Promise<void> {
    ticking ??= tickOnce()
      .catch((error: unknown) => log.warn("events.tick_failed", { error: reason(error) }))
      .finally(() => {
        ticking = null
      })
    return ticking
  }

  /** One read (every page since the cursor); reads never overlap: a read asked for during one runs once after it. */
  function read(): Promise<number> {
    if (reading) {
      readAgain = true
      return reading
    }
    reading = (async () => {
      let total = 0
      do {
        readAgain = false
        lastReadStart = now()
        total += await readOnce()
      } while (readAgain && !stopped && now() - lastReadStart >= wakeGapMs)
      return total
    })().finally(() => {
      reading = null
      // Asked for again sooner than the gap allows: one read when it has passed.
      if (readAgain && !stopped) scheduleWake()
    })
    return reading
  }

  async function cursor(): Promise<{ at: Date | null; id: string | null; lastReadAt: Date | null }> {
    const [row] = await queryRows<{ cursor_at: string | Date | null; cursor_id: string | null; last_read_at: string | Date | null }>(
      db,
      sql`select cursor_at, cursor_id, last_read_at from console_event_reader where id = 1`,
    )
    return { at: row?.cursor_at ? new Date(row.cursor_at) : null, id: row?.cursor_id ?? null, lastReadAt: row?.last_read_at ? new Date(row.last_read_at) : null }
  }

  /** Reads and processes the events since the cursor; answers how many were new. */
  async function readOnce(): Promise<number> {
    // A hint that arrives from here on asks for the next read, not this one.
    if (!solo) await db.execute(sql`update console_event_reader set wake_at = null where id = 1 and holder = ${id}`)
    const from = await cursor()
    const since = from.at ? new Date(from.at.getTime() - overlapMs).toISOString() : undefined
    let pageCursor: string | undefined
    let fresh = 0
    for (let page = 0; page < maxPages && !stopped; page++) {
      reads++
      const answer = await upstream.listEvents({ "created_at.gte": since, order: "ASC", limit: pageSize, page_cursor: pageCursor })
      const ids = answer.events.map((e) => e.id)
      const known = new Set(
        ids.length === 0
          ? []
          : (await db.select({ id: consoleEvents.id }).from(consoleEvents).where(inArray(consoleEvents.id, ids))).map((r) => r.id),
      )
      for (const event of answer.events) {
        if (known.has(event.id) || stopped) continue
        if (await processNew(stored(event), event.undelivered_webhooks ?? null)) fresh++
      }
      pageCursor = answer.next_page_cursor
      if (!pageCursor) break
    }
    lastReadAt = now()
    await db.execute(sql`update console_event_reader set last_read_at = now() where id = 1`)
    const after = await cursor()
    if (after.at) cursorAt = after.at.getTime()
    return fresh
  }

  /** The cursor moves to the event when it is later than the cursor, in (created_at, id) order. */
  async function advance(tx: EventTx, event: StoredEvent): Promise<void> {
    const at = event.createdAt.toISOString()
    await tx.execute(
      sql`update console_event_reader set cursor_at = ${at}::timestamptz, cursor_id = ${event.id}
          where id = 1 and (cursor_at is null or (cursor_at, cursor_id) < (${at}::timestamptz, ${event.id}))`,
    )
  }

  async function holdLease(tx: EventTx): Promise<void> {
    if (solo) return
    const [row] = await queryRows<{ holder: string | null }>(tx as Db, sql`select holder from console_event_reader where id = 1 for update`)
    if (row?.holder !== id) {
      holder = false
      throw new LeaseLost()
    }
  }

  /** Records and applies one event never seen; false when another reader recorded it first. */
  async function processNew(event: StoredEvent, undelivered: number | null): Promise<boolean> {
    let prepared: unknown
    let failure: unknown = null
    try {
      prepared = await handler.prepare?.(event)
    } catch (error) {
      failure = error
    }
    const base = {
      id: event.id,
      type: event.type,
      objectType: event.objectType,
      objectId: objectIdOf(event),
      object: event.object,
      createdAt: event.createdAt,
      undeliveredWebhooks: undelivered,
    }
    if (failure === null) {
      try {
        let effects: Record<string, unknown> = {}
        const inserted = await db.transaction(async (tx) => {
          await holdLease(tx)
          const at = new Date(now())
          const rows = await tx
            .insert(consoleEvents)
            .values({ ...base, status: "processed", attempts: 1, processedAt: at, processedBy: id })
            .onConflictDoNothing()
            .returning({ id: consoleEvents.id })
          if (rows.length === 0) return false
          effects = await handler.apply(tx, event, prepared, at)
          await tx.update(consoleEvents).set({ effects }).where(eq(consoleEvents.id, event.id))
          await advance(tx, event)
          return true
        })
        if (inserted) {
          // One line per event committed here: the benchmark counts them across instances (none twice).
          log.debug("events.processed", { eventId: event.id, type: event.type, instance: id })
          afterCommit(event, effects)
        }
        return inserted
      } catch (error) {
        if (error instanceof LeaseLost) throw error
        failure = error
      }
    }
    // The processing failed: the event is recorded for a retry and the cursor moves on.
    log.warn("events.processing_failed", { eventId: event.id, type: event.type, attempt: 1, error: reason(failure) })
    return db.transaction(async (tx) => {
      await holdLease(tx)
      const parked = maxAttempts <= 1
      const rows = await tx
        .insert(consoleEvents)
        .values({
          ...base,
          status: parked ? "parked" : "retrying",
          attempts: 1,
          lastError: reason(failure),
          nextAttemptAt: parked ? null : new Date(now() + retryBaseMs),
        })
        .onConflictDoNothing()
        .returning({ id: consoleEvents.id })
      if (rows.length === 0) return false
      await advance(tx, event)
      return true
    })
  }

  function afterCommit(event: StoredEvent, effects: Record<string, unknown>): void {
    try {
      handler.afterCommit?.(event, effects)
    } catch (error) {
      log.warn("events.after_commit_failed", { eventId: event.id, error: reason(error) })
    }
  }

  /**
   * Applies a recorded event again: a retry (`expect` retrying), or a replay asked for by an
   * admin (processed or parked). Answers the row as it ends.
   */
  async function reapply(
    eventId: string,
    expect: readonly ConsoleEventRow["status"][],
    replay: boolean,
  ): Promise<{ row: ConsoleEventRow; error: string | null } | null> {
    const [row] = await db.select().from(consoleEvents).where(eq(consoleEvents.id, eventId))
    if (!row) return null
    if (!expect.includes(row.status)) return { row, error: null }
    const event = storedFromRow(row)
    let failure: unknown = null
    try {
      const prepared = await handler.prepare?.(event)
      let effects: Record<string, unknown> = {}
      const done = await db.transaction(async (tx) => {
        if (!replay) await holdLease(tx)
        const [locked] = await queryRows<{ status: string }>(tx, sql`select status from console_events where id = ${eventId} for update`)
        if (!locked || !(expect as readonly string[]).includes(locked.status)) return false
        const at = new Date(now())
        effects = { ...(row.effects ?? {}), ...(await handler.apply(tx, event, prepared, at)) }
        await tx
          .update(consoleEvents)
          .set({
            status: "processed",
            effects,
            ...(row.status === "processed" ? {} : { processedAt: at, processedBy: id, attempts: row.attempts + 1, lastError: null, nextAttemptAt: null }),
            ...(replay ? { replays: row.replays + 1 } : {}),
          })
          .where(eq(consoleEvents.id, eventId))
        return true
      })
      if (done) afterCommit(event, effects)
    } catch (error) {
      if (error instanceof LeaseLost) throw error
      failure = error
    }
    if (failure !== null) {
      const attempts = row.attempts + 1
      const parked = replay || attempts >= maxAttempts
      log.warn("events.processing_failed", { eventId, type: row.type, attempt: attempts, parked, error: reason(failure) })
      await db
        .update(consoleEvents)
        .set({
          // A replay of a processed event that fails leaves it processed: what it applied the first time stands.
          status: replay && row.status === "processed" ? "processed" : parked ? "parked" : "retrying",
          attempts,
          lastError: reason(failure),
          nextAttemptAt: parked ? null : new Date(now() + retryBaseMs * 2 ** (attempts - 1)),
          ...(replay ? { replays: row.replays + 1 } : {}),
        })
        .where(and(eq(consoleEvents.id, eventId), eq(consoleEvents.status, row.status)))
    }
    const [after] = await db.select().from(consoleEvents).where(eq(consoleEvents.id, eventId))
    return after ? { row: after, error: failure === null ? null : reason(failure) } : null
  }

  /** Retries the failed processings that are due, oldest first. */
  async function retryDue(): Promise<number> {
    const due = await db
      .select({ id: consoleEvents.id })
      .from(consoleEvents)
      .where(and(eq(consoleEvents.status, "retrying"), lte(consoleEvents.nextAttemptAt, new Date(now()))))
      .orderBy(asc(consoleEvents.nextAttemptAt))
      .limit(20)
    for (const { id: eventId } of due) {
      if (stopped) break
      await reapply(eventId, ["retrying"], false)
    }
    return due.length
  }

  function scheduleWake(): void {
    if (wakeTimer || stopped) return
    const wait = Math.max(0, lastReadStart + wakeGapMs - now())
    wakeTimer = setTimeout(() => {
      wakeTimer = null
      void (async () => {
        if (stopped) return
        if (!solo && !(await lease().catch(() => ({ holder: false }))).holder) return
        await read()
      })().catch((error: unknown) => log.warn("events.read_failed", { error: reason(error) }))
    }, wait)
    wakeTimer.unref?.()
  }

  return {
    /** Starts ticking (lease, reads every `pollMs`, retries). */
    start(): void {
      if (timer || stopped) return
      timer = setInterval(() => void tick(), tickMs)
      timer.unref?.()
      void tick()
    },

    /** One tick now (tests, and the first at start). */
    tick,

    /** One read now, whoever holds the lease (tests); reads never overlap. */
    read,

    /** The retries that are due, now (tests). */
    retryDue,

    /**
     * A webhook hint: read sooner. Hints coalesce: one read at most per `wakeGapMs`, and
     * during a read, at most one more after it. On an instance that is not the reader, the
     * hint is left in the lease row for the reader's next tick (`hintElsewhere`).
     */
    wake(): void {
      if (stopped) return
      if (reading) {
        readAgain = true
        return
      }
      if (holder) scheduleWake()
    },

    /** Leaves a hint for whichever instance reads (its next tick, within `tickMs`). */
    async hintElsewhere(): Promise<void> {
      if (solo || holder) return
      await db.execute(sql`update console_event_reader set wake_at = ${DB_NOW} where id = 1 and wake_at is null`)
    },

    /**
     * Processes a recorded event again (an admin's replay): what was applied is not applied
     * twice. Null when the console never read the event; `error` when the processing failed.
     */
    replay(eventId: string): Promise<{ row: ConsoleEventRow; error: string | null } | null> {
      return reapply(eventId, ["processed", "parked", "retrying"], true)
    },

    status(): EventReaderStatus {
      const t = now()
      return {
        reader: holder && !stopped,
        lagSeconds: cursorAt === null ? null : Math.max(0, (t - cursorAt) / 1000),
        lastReadSeconds: lastReadAt === null ? null : Math.max(0, (t - lastReadAt) / 1000),
        behind: t - (lastReadAt ?? createdAt) > staleMs,
        mode: solo ? "solo" : "shared",
      }
    },

    /**
     * Whether some instance has read the events lately (within three reads' time): then an
     * orchestration's final status comes from its event, and nobody needs to ask for it.
     */
    covering(): boolean {
      return !stopped && lastReadAt !== null && now() - lastReadAt < 3 * pollMs + leaseMs
    },

    /** Reads of GET /v2/events this instance made (tests, the bench). */
    reads: () => reads,

    /** Refreshes the lag and the last read (whichever instance made it) from the database. */
    async refreshLag(): Promise<void> {
      const from = await cursor()
      if (from.at) cursorAt = from.at.getTime()
      if (from.lastReadAt && !solo) lastReadAt = Math.max(lastReadAt ?? 0, from.lastReadAt.getTime())
    },

    /** A clean shutdown: no more reads, the lease given up so another instance reads on its next tick. */
    async stop(): Promise<void> {
      stopped = true
      if (timer) clearInterval(timer)
      if (wakeTimer) clearTimeout(wakeTimer)
      timer = null
      wakeTimer = null
      await reading?.catch(() => undefined)
      await ticking
      if (!solo && holder) {
        holder = false
        await db.execute(sql`update console_event_reader set lease_until = 0 where id = 1 and holder = ${id}`).catch(() => undefined)
      }
    },

    /** Tests: this instance dies where it stands (no more ticks, the lease left to lapse). */
    halt(): void {
      stopped = true
      if (timer) clearInterval(timer)
      if (wakeTimer) clearTimeout(wakeTimer)
      timer = null
    },
  }
}

export type EventReader = ReturnType<typeof createEventReader>
