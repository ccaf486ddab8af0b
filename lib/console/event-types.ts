// The event reader's contract: what an event is as the console keeps it, what a handler
// does with one, the reader's status and its defaults. Types and pure conversions only.
import type { Db } from "@/lib/db/client"
import type { ConsoleEventRow } from "@/lib/db/schema"
import type { ServiceEvent } from "@/lib/upstream"

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

export function storedFromService(event: ServiceEvent): StoredEvent {
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

/** A failure as stored on the event row and logged (bounded). */
export const failureReason = (error: unknown) => (error instanceof Error ? `${error.name}: ${error.message}` : String(error)).slice(0, 500)
