import "server-only"
import { and, asc, eq, lte, sql } from "drizzle-orm"
import type { Db } from "@/lib/db/client"
import { type ConsoleEventRow, consoleEvents } from "@/lib/db/schema"
import { queryRows } from "@/lib/db/rows"
import { advanceCursor } from "@/lib/console/event-cursor"
import { LeaseLost } from "@/lib/console/event-lease"
import { type EventHandler, type EventTx, type StoredEvent, failureReason as reason, storedFromRow } from "@/lib/console/event-types"
import { log } from "@/lib/log"

/**
 * The processing of one event, exactly once: the console_events row (keyed by the event's
 * id), what the handler applies and the cursor's move are one transaction, which also checks
 * the lease is still this instance's (`holdLease`; an instance that lost it writes nothing).
 * A processing that fails is recorded (retrying, with the reason) and tried again with
 * backoff, then parked after `maxAttempts`; an admin's replay applies a recorded event again.
 */

function objectIdOf(event: StoredEvent): string | null {
  const id = event.object.id
  return typeof id === "string" ? id : null
}

export function createEventProcessor(options: {
  db: Db
  /** This instance's id: written as processed_by. */
  id: string
  handler: EventHandler
  maxAttempts: number
  retryBaseMs: number
  now: () => number
  holdLease: (tx: EventTx) => Promise<void>
  stopped: () => boolean
}) {
  const { db, id, handler, maxAttempts, retryBaseMs, now, holdLease } = options

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
          await advanceCursor(tx, event)
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
      await advanceCursor(tx, event)
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
      if (options.stopped()) break
      await reapply(eventId, ["retrying"], false)
    }
    return due.length
  }

  return { processNew, reapply, retryDue }
}

export type EventProcessor = ReturnType<typeof createEventProcessor>
