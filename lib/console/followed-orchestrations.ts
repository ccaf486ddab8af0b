import "server-only"
import { and, desc, eq, like } from "drizzle-orm"
import type { Db } from "@/lib/db/client"
import { consoleEvents } from "@/lib/db/schema"
import { isTerminalStatus } from "@/lib/schemas/constants"
import type { Conversion } from "@/lib/schemas/records"

/**
 * An orchestration's record page (and the desk's live result) asks every second until the
 * status is final. With the event reader covering, an orchestration in PROCESSING changes
 * only through an event (`orchestration.completed|failed`), so its record is asked of the
 * service again only when a new event about it has been processed (the record then carries
 * the status the event announced), or every `recheckMs` as a safety net; a final record is
 * kept as it is. PENDING (waiting for approval at the service) is asked every time: the
 * service sends no event when it rejects one. Without the reader covering, or for a
 * stablecoin conversion, every ask goes to the service, as before.
 *
 * The records are kept in this process (each instance asks at most once per change).
 */
export const FOLLOWED_DEFAULTS = { recheckMs: 30_000, maxEntries: 1000 } as const

interface Entry {
  record: Conversion
  /** The newest processed event about the orchestration when the record was fetched. */
  eventId: string | null
  fetchedAt: number
}

export function createOrchestrationFollower(options: { db: Db; recheckMs?: number; maxEntries?: number; now?: () => number }) {
  const recheckMs = options.recheckMs ?? FOLLOWED_DEFAULTS.recheckMs
  const maxEntries = options.maxEntries ?? FOLLOWED_DEFAULTS.maxEntries
  const now = options.now ?? Date.now
  const entries = new Map<string, Entry>()
  let serviceReads = 0

  async function newestEvent(id: string): Promise<string | null> {
    const [row] = await options.db
      .select({ id: consoleEvents.id })
      .from(consoleEvents)
      .where(and(eq(consoleEvents.objectId, id), like(consoleEvents.type, "orchestration.%"), eq(consoleEvents.status, "processed")))
      .orderBy(desc(consoleEvents.createdAt), desc(consoleEvents.id))
      .limit(1)
    return row?.id ?? null
  }

  function keep(id: string, entry: Entry): void {
    entries.delete(id)
    entries.set(id, entry)
    // The oldest first out: a Map iterates in insertion order.
    while (entries.size > maxEntries) entries.delete(entries.keys().next().value as string)
  }

  return {
    /**
     * The conversion `id`: from the service (`fetch`), or as last fetched when the events
     * say nothing changed since. `covering`: the reader covers the orchestrations in use.
     */
    async get(id: string, fetch: () => Promise<Conversion>, covering: boolean): Promise<Conversion> {
      if (!covering) {
        entries.delete(id)
        serviceReads++
        return fetch()
      }
      const entry = entries.get(id)
      if (entry && isTerminalStatus(entry.record.status)) return entry.record
      // Asked before the service, so an event processed meanwhile is not taken as seen.
      const eventId = await newestEvent(id)
      if (entry && entry.record.status === "PROCESSING" && entry.eventId === eventId && now() - entry.fetchedAt < recheckMs) return entry.record
      serviceReads++
      const record = await fetch()
      keep(id, { record, eventId, fetchedAt: now() })
      return record
    },

    /** Records asked of the service (tests). */
    serviceReads: () => serviceReads,
  }
}

export type OrchestrationFollower = ReturnType<typeof createOrchestrationFollower>
