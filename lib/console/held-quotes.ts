import "server-only"
import type { QuoteSource } from "@/lib/console/quote-feed"
import type { Quote } from "@/lib/schemas/records"

/** Where the held quotes come from: the shared quote cache in the app, the service in tests. */
export type HeldQuotes = (quoteId?: string) => Promise<Quote[]>

/**
 * The current held quotes, from the shared quote cache (no extra call to the service),
 * and the ones it served earlier that have not expired: what a form or client reviewed.
 */
export function heldQuotesOf(runtime: { quotes: QuoteSource }): HeldQuotes {
  return async (quoteId?: string) => {
    const current = (await runtime.quotes.get(null)).quotes
    const earlier = quoteId ? runtime.quotes.held(quoteId) : null
    return earlier && !current.some((q) => q.id === earlier.id) ? [earlier, ...current] : current
  }
}

/** The newest held quote of a market and side. */
export function currentQuote(quotes: Quote[], market: string | null, side: string | null): Quote | null {
  let best: Quote | null = null
  for (const q of quotes) {
    if (q.market === market && q.side === side && (!best || q.created_at > best.created_at)) best = q
  }
  return best
}
