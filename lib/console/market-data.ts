import "server-only"
import { CHART_RANGES, type ChartRange, type HistoricalPrice, type MarketPrice, PRICE_MARKETS } from "@/lib/schemas/market-data"
import type { MarketDataOperations } from "@/lib/upstream"

interface Entry<T> {
  startedAt: number
  value: { ok: true; data: T; fetchedAt: number } | null
  error: Error | null
  pending: Promise<void> | null
}

/**
 * A keyed cache that asks the service at most once per key per `ttlMs`, however many
 * readers ask: a reader within the window gets the held answer, readers arriving during a
 * call join it. A failed call is held for the window too (so a bad key cannot make the
 * console hammer the service); while it is, the last good answer is served, marked stale.
 */
export function createTtlCache<T>(options: { ttlMs: number; maxKeys?: number; now?: () => number }) {
  const now = options.now ?? Date.now
  const maxKeys = options.maxKeys ?? 256
  const entries = new Map<string, Entry<T>>()

  return {
    /** The next `get` of `key` asks again (a call under way still answers the readers that joined it). */
    invalidate(key: string): void {
      const entry = entries.get(key)
      if (entry) entry.startedAt = Number.NEGATIVE_INFINITY
    },
    async get(key: string, load: () => Promise<T>): Promise<{ data: T; fetchedAt: number; stale: boolean }> {
      let entry = entries.get(key)
      if (!entry) {
        if (entries.size >= maxKeys) {
          const oldest = entries.keys().next().value
          if (oldest !== undefined) entries.delete(oldest)
        }
        entry = { startedAt: Number.NEGATIVE_INFINITY, value: null, error: null, pending: null }
        entries.set(key, entry)
      }
      const held = entry
      if (held.pending) await held.pending
      else if (now() - held.startedAt >= options.ttlMs) {
        held.startedAt = now()
        held.pending = load()
          .then((data) => {
            held.value = { ok: true, data, fetchedAt: now() }
            held.error = null
          })
          .catch((error: unknown) => {
            held.error = error instanceof Error ? error : new Error(String(error))
          })
          .finally(() => {
            held.pending = null
          })
        await held.pending
      }
      if (held.value) return { data: held.value.data, fetchedAt: held.value.fetchedAt, stale: held.error !== null }
      throw held.error ?? new Error("no answer")
    },
  }
}

export interface HistorySnapshot {
  items: HistoricalPrice[]
  fetchedAt: number
  stale: boolean
}

/** Market data for every open chart: history at most one service call per market and range per `ttlMs`. */
export function createMarketData(options: {
  upstream: Pick<MarketDataOperations, "listHistoricalPrices" | "listPrices"> & Partial<Pick<MarketDataOperations, "listMarkets">>
  ttlMs?: number
  /** How long the markets' tick rates are held: they change rarely (10 minutes unless said). */
  marketsTtlMs?: number
  now?: () => number
}) {
  const now = options.now ?? Date.now
  const ttlMs = options.ttlMs ?? 10_000
  const histories = createTtlCache<HistoricalPrice[]>({ ttlMs, now })
  const prices = createTtlCache<MarketPrice[]>({ ttlMs, now, maxKeys: 1 })
  const markets = createTtlCache<Record<string, string>>({ ttlMs: options.marketsTtlMs ?? 600_000, now, maxKeys: 1 })

  return {
    ttlMs,
    /** The range's points, as many as the chart draws (the service picks the increment). */
    async history(market: string, range: ChartRange): Promise<HistorySnapshot> {
      const { seconds, points } = CHART_RANGES[range]
      const answer = await histories.get(`${market}|${range}`, async () => {
        const page = await options.upstream.listHistoricalPrices(market, {
          maxDataPoints: points,
          begin: new Date(now() - seconds * 1000),
          limit: 1000,
        })
        return page.items
      })
      return { items: answer.data, fetchedAt: answer.fetchedAt, stale: answer.stale }
    },

    /** Current and 24-hours-ago prices of every USD market. */
    async prices(): Promise<{ items: MarketPrice[]; fetchedAt: number; stale: boolean }> {
      const answer = await prices.get("all", () => options.upstream.listPrices(PRICE_MARKETS))
      return { items: answer.data, fetchedAt: answer.fetchedAt, stale: answer.stale }
    },

    /**
     * Each market's `tick_rate` (GET /v2/markets), which sets the decimals its prices are
     * shown with (lib/format). Empty when the service does not answer: prices then fall
     * back to the decimals by size, and nothing else fails for it.
     */
    async tickRates(): Promise<Record<string, string>> {
      const list = options.upstream.listMarkets?.bind(options.upstream)
      if (!list) return {}
      try {
        const answer = await markets.get("all", async () => Object.fromEntries((await list()).map((m) => [m.market, m.tick_rate])))
        return answer.data
      } catch {
        return {}
      }
    },
  }
}

export type MarketDataCache = ReturnType<typeof createMarketData>
