import "server-only"
import type { Quote } from "@/lib/schemas/records"

export interface QuoteSnapshot {
  quotes: Quote[]
  /** When the service answered (ms since the epoch). */
  fetchedAt: number
  /** The last refresh failed and these are the last good quotes still within expiry. */
  stale: boolean
}

interface Entry {
  startedAt: number
  pending: Promise<QuoteSnapshot> | null
  last: QuoteSnapshot | null
}

/**
 * One server-side cache in front of the service's quotes: each set of markets is asked
 * for at most once per `ttlMs`, concurrent readers share the one call in flight, so the
 * service sees at most one quotes call per second per set whatever the number of browsers.
 * When a refresh fails, the last quotes that have not expired yet are served, marked stale.
 */
export function createQuoteCache(options: {
  fetchQuotes: (markets: readonly string[]) => Promise<Quote[]>
  ttlMs?: number
  now?: () => number
  maxSets?: number
}) {
  const ttlMs = options.ttlMs ?? 1000
  const now = options.now ?? Date.now
  const maxSets = options.maxSets ?? 64
  const entries = new Map<string, Entry>()

  async function refresh(key: string, markets: readonly string[], entry: Entry): Promise<QuoteSnapshot> {
    try {
      const quotes = await options.fetchQuotes(markets)
      const snapshot = { quotes, fetchedAt: now(), stale: false }
      entry.last = snapshot
      return snapshot
    } catch (error) {
      const t = now()
      const live = entry.last?.quotes.filter((q) => Date.parse(q.expires_at) > t) ?? []
      if (entry.last && live.length > 0) return { quotes: live, fetchedAt: entry.last.fetchedAt, stale: true }
      throw error
    } finally {
      entry.pending = null
    }
  }

  return {
    get(markets: readonly string[]): Promise<QuoteSnapshot> {
      const set = [...new Set(markets)].sort()
      const key = set.join(",")
      let entry = entries.get(key)
      if (!entry) {
        if (entries.size >= maxSets) {
          const oldest = entries.keys().next().value
          if (oldest !== undefined) entries.delete(oldest)
        }
        entry = { startedAt: Number.NEGATIVE_INFINITY, pending: null, last: null }
        entries.set(key, entry)
      }
      if (entry.pending) return entry.pending
      const t = now()
      if (t - entry.startedAt < ttlMs) {
        if (entry.last) return Promise.resolve(entry.last)
      }
      entry.startedAt = t
      entry.pending = refresh(key, set, entry)
      return entry.pending
    },
  }
}

export type QuoteCache = ReturnType<typeof createQuoteCache>
