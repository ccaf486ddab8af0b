import "server-only"
import type { Quote } from "@/lib/schemas/records"
import { UpstreamProblemError } from "@/lib/upstream"

export interface QuoteSnapshot {
  quotes: Quote[]
  /** When the service answered (ms since the epoch). */
  fetchedAt: number
  /** The last refresh failed and these are the last good quotes still within expiry. */
  stale: boolean
  /** Every market the last answer held quotes for (the market picker's list). */
  markets: string[]
}

interface Held {
  quotes: Quote[]
  fetchedAt: number
  /** When the refresh that produced it started (the once-per-second clock). */
  startedAt: number
  /** The markets it was asked for; null when it asked for every market. */
  asked: ReadonlySet<string> | null
  /** Set when the last refresh failed: what to throw if nothing is left to serve. */
  error: Error | null
}

/**
 * One server-side cache in front of the service's quotes, whatever the number of browsers
 * and whichever markets they watch: at most one quotes call per `ttlMs`, shared by every
 * reader, each reader served its markets out of that one answer.
 *
 * The call asks for every market (the service's default), which also tells the console
 * which markets exist. A service that refuses a call without `markets` is asked from then
 * on for the union of the base markets, the markets it has answered for, and the markets
 * readers asked for in the last `watchMs`. When a refresh fails, the last quotes that have
 * not expired yet are served, marked stale.
 */
export function createQuoteCache(options: {
  fetchQuotes: (markets: readonly string[]) => Promise<Quote[]>
  baseMarkets?: readonly string[]
  ttlMs?: number
  watchMs?: number
  /** How long markets the service refused are left out of the call. */
  refusedForMs?: number
  maxMarkets?: number
  now?: () => number
  sleep?: (ms: number) => Promise<void>
}) {
  const ttlMs = options.ttlMs ?? 1000
  const watchMs = options.watchMs ?? 60_000
  const maxMarkets = options.maxMarkets ?? 64
  const now = options.now ?? Date.now
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)))
  const refusedForMs = options.refusedForMs ?? 10 * 60_000
  const known = new Set(options.baseMarkets ?? [])
  /** Markets readers asked for that no answer has confirmed yet → when last asked. */
  const watched = new Map<string, number>()
  /** Markets the service refused to be asked for → until when they are not asked again. */
  const refused = new Map<string, number>()
  let askForAll = true
  let held: Held | null = null
  let lastStart = Number.NEGATIVE_INFINITY
  /** When the last call's answer (or failure) came back. */
  let lastEnd = Number.NEGATIVE_INFINITY
  let pending: Promise<Held> | null = null

  function note(markets: readonly string[]): void {
    const t = now()
    for (const [m, until] of refused) if (until <= t) refused.delete(m)
    for (const m of markets) if (!known.has(m) && !refused.has(m)) watched.set(m, t)
    for (const [m, at] of watched) if (t - at > watchMs) watched.delete(m)
    while (watched.size > 0 && known.size + watched.size > maxMarkets) {
      const oldest = watched.keys().next().value
      if (oldest === undefined) break
      watched.delete(oldest)
    }
  }

  function covers(h: Held, markets: readonly string[]): boolean {
    return h.asked === null || markets.every((m) => h.asked?.has(m))
  }

  async function fetchListed(withUnconfirmed: boolean): Promise<{ quotes: Quote[]; asked: string[] }> {
    const asked = [...known, ...(withUnconfirmed ? watched.keys() : [])].sort()
    try {
      return { quotes: await options.fetchQuotes(asked), asked }
    } catch (error) {
      // One unknown market (a reader's typo) must not take every market down with it.
      if (withUnconfirmed && watched.size > 0 && isRefusal(error)) {
        for (const m of watched.keys()) refused.set(m, now() + refusedForMs)
        watched.clear()
        return fetchListed(false)
      }
      throw error
    }
  }

  async function refresh(): Promise<Held> {
    // Spaced from the last answer as well as the last start: a call that left late (its
    // token fetched first, a busy event loop) must not reach the service within ttlMs of the next.
    const wait = Math.max(lastStart, lastEnd) + ttlMs - now()
    if (wait > 0) await sleep(wait)
    const startedAt = (lastStart = now())
    try {
      let answer: { quotes: Quote[]; asked: string[] | null } | null = null
      if (askForAll) {
        try {
          answer = { quotes: await options.fetchQuotes([]), asked: null }
        } catch (error) {
          if (!isRefusal(error)) throw error
          askForAll = false
        }
      }
      answer ??= await fetchListed(true)
      for (const q of answer.quotes) {
        known.add(q.market)
        watched.delete(q.market)
      }
      remember(answer.quotes)
      held = {
        quotes: answer.quotes,
        fetchedAt: now(),
        startedAt,
        asked: answer.asked === null ? null : new Set(answer.asked),
        error: null,
      }
      return held
    } catch (error) {
      const t = now()
      const live = held?.quotes.filter((q) => Date.parse(q.expires_at) > t) ?? []
      held = held ? { ...held, quotes: live, startedAt, error: error instanceof Error ? error : new Error(String(error)) } : null
      if (!held) throw error
      return held
    } finally {
      lastEnd = now()
      pending = null
    }
  }

  /** Every quote served, by id, until it expires: a submission names a quote after newer ones replaced it. */
  const served = new Map<string, Quote>()
  function remember(quotes: readonly Quote[]): void {
    const t = now()
    for (const [id, q] of served) if (Date.parse(q.expires_at) <= t) served.delete(id)
    for (const q of quotes) if (Date.parse(q.expires_at) > t) served.set(q.id, q)
  }

  function serve(h: Held, markets: readonly string[] | null): QuoteSnapshot {
    const wanted = markets ? new Set(markets) : null
    const quotes = wanted ? h.quotes.filter((q) => wanted.has(q.market)) : h.quotes
    if (h.error !== null && quotes.length === 0) throw h.error
    return {
      quotes,
      fetchedAt: h.fetchedAt,
      stale: h.error !== null,
      markets: [...new Set(h.quotes.map((q) => q.market))].sort(),
    }
  }

  function fresh(h: Held | null, markets: readonly string[]): h is Held {
    return h !== null && now() - h.startedAt < ttlMs && covers(h, markets)
  }

  return {
    /** Held quotes of `markets`; null or empty: every market of the last answer. */
    async get(markets: readonly string[] | null = null): Promise<QuoteSnapshot> {
      const asked = markets && markets.length > 0 ? [...new Set(markets)] : null
      note(asked ?? [])
      // A refresh under way may already cover these markets: join it first.
      if (pending) await pending.catch(() => undefined)
      if (fresh(held, asked ?? [])) return serve(held, asked)
      pending ??= refresh()
      return serve(await pending, asked)
    },
    /** A quote this cache has served that has not expired yet; null otherwise. */
    held(id: string): Quote | null {
      const quote = served.get(id)
      return quote && Date.parse(quote.expires_at) > now() ? quote : null
    },
  }
}

/** The service refused what was asked (a validation error), not who asked or when: asking the same again won't help. */
function isRefusal(error: unknown): boolean {
  return error instanceof UpstreamProblemError && (error.status === 400 || error.status === 422)
}

export type QuoteCache = ReturnType<typeof createQuoteCache>
