import "server-only"
import { inArray } from "drizzle-orm"
import type { Db } from "@/lib/db/client"
import { type ConsoleEventRow, consoleEvents } from "@/lib/db/schema"
import { markRead, readCursor } from "@/lib/console/event-cursor"
import { createEventLease } from "@/lib/console/event-lease"
import { createEventProcessor } from "@/lib/console/event-processing"
import { EVENT_READER_DEFAULTS, type EventHandler, type EventReaderStatus, failureReason as reason, storedFromService } from "@/lib/console/event-types"
import { log } from "@/lib/log"
import type { UpstreamClient } from "@/lib/upstream"

// The reader itself: its ticks, the read loop over GET /v2/events from the cursor, the
// webhook wake-up, and its status. The lease is lib/console/event-lease.ts, the cursor
// lib/console/event-cursor.ts, the processing of an event lib/console/event-processing.ts,
// the types lib/console/event-types.ts (re-exported here for the reader's users).
export { EVENT_READER_DEFAULTS, storedFromRow } from "@/lib/console/event-types"
export type { EventHandler, EventReaderStatus, EventTx, StoredEvent } from "@/lib/console/event-types"

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
  let hinting: Promise<void> | null = null

  const lease = createEventLease({ db, id, solo, leaseMs })
  const processor = createEventProcessor({
    db,
    id,
    handler,
    maxAttempts,
    retryBaseMs,
    now,
    holdLease: (tx) => lease.hold(tx),
    stopped: () => stopped,
  })
  const { processNew, retryDue } = processor

  /** Takes or renews the lease; keeps the cursor's time and the others' last read it brings back. */
  async function renew(): Promise<{ holder: boolean; woken: boolean }> {
    const row = await lease.renew()
    if (row.cursorAt !== null) cursorAt = row.cursorAt
    // Whoever read last, as this instance's clock sees it (for `covering`).
    if (row.othersReadAt !== null) lastReadAt = Math.max(lastReadAt ?? 0, row.othersReadAt)
    return row
  }

  async function tickOnce(): Promise<void> {
    const { holder: mine, woken } = await renew()
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

  /** Reads and processes the events since the cursor; answers how many were new. */
  async function readOnce(): Promise<number> {
    await lease.clearHint()
    const from = await readCursor(db)
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
        if (await processNew(storedFromService(event), event.undelivered_webhooks ?? null)) fresh++
      }
      pageCursor = answer.next_page_cursor
      if (!pageCursor) break
    }
    lastReadAt = now()
    await markRead(db)
    const after = await readCursor(db)
    if (after.at) cursorAt = after.at.getTime()
    return fresh
  }

  function scheduleWake(): void {
    if (wakeTimer || stopped) return
    const wait = Math.max(0, lastReadStart + wakeGapMs - now())
    wakeTimer = setTimeout(() => {
      wakeTimer = null
      void (async () => {
        if (stopped) return
        if (!solo && !(await renew().catch(() => ({ holder: false }))).holder) return
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
      if (lease.holds()) scheduleWake()
    },

    /**
     * Leaves a hint for whichever instance reads (its next tick, within `tickMs`). At most one
     * write in flight per instance: hints that come meanwhile are the same hint (the row keeps
     * one until the reader clears it), so a flood costs the database one update at a time.
     */
    hintElsewhere(): Promise<void> {
      if (solo || lease.holds()) return Promise.resolve()
      hinting ??= lease.hint().finally(() => {
        hinting = null
      })
      return hinting
    },

    /**
     * Processes a recorded event again (an admin's replay): what was applied is not applied
     * twice. Null when the console never read the event; `error` when the processing failed.
     */
    replay(eventId: string): Promise<{ row: ConsoleEventRow; error: string | null } | null> {
      return processor.reapply(eventId, ["processed", "parked", "retrying"], true)
    },

    status(): EventReaderStatus {
      const t = now()
      return {
        reader: lease.holds() && !stopped,
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
      const from = await readCursor(db)
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
      await lease.release()
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
