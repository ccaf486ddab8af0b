import "server-only"
import type { HeldQuotes } from "@/lib/console/approvals"
import type { ConsoleRuntime } from "@/lib/console/runtime"

/**
 * The current held quotes, from the shared quote cache (no extra call to the service),
 * and the ones it served earlier that have not expired: what a form or client reviewed.
 */
export function heldQuotesOf(runtime: ConsoleRuntime): HeldQuotes {
  return async (quoteId?: string) => {
    const current = (await runtime.quotes.get(null)).quotes
    const earlier = quoteId ? runtime.quotes.held(quoteId) : null
    return earlier && !current.some((q) => q.id === earlier.id) ? [earlier, ...current] : current
  }
}
