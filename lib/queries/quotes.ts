"use client"

import { useQuery } from "@tanstack/react-query"
import { apiFetch, toQuery } from "@/lib/queries/api"
import { quoteKeys } from "@/lib/queries/keys"
import { type QueryOptions, gated } from "@/lib/queries/options"
import { useStreamInterest, useStreamedInterval } from "@/lib/queries/stream"
import type { Quote } from "@/lib/schemas/records"

export interface QuoteSnapshot {
  items: Quote[]
  /** Every market the service has quotes for right now (the market picker's list). */
  markets: string[]
  fetched_at: string
  stale: boolean
}

/** The answer's schema, loaded with the first answer: the trade desk's first load stays free of zod. */
const quoteSnapshotSchema = () => import("@/lib/queries/response-schemas").then((m) => m.quoteSnapshotSchema)

export function fetchQuotes(markets: readonly string[], signal?: AbortSignal): Promise<QuoteSnapshot> {
  return apiFetch(`/api/quotes${toQuery({ markets })}`, { signal, schema: quoteSnapshotSchema })
}

/** Every market's held quotes (the desk's price grid), refreshed every second from the console's shared cache (pushed instead while the tab's stream is live). */
export function useAllQuotesQuery(options?: QueryOptions<QuoteSnapshot>) {
  // Pushed on the tab's stream while it is live (lib/queries/stream.ts); polled otherwise.
  useStreamInterest("all")
  const interval = useStreamedInterval(1_000)
  return useQuery({
    refetchInterval: interval,
    refetchIntervalInBackground: false,
    staleTime: 0,
    ...options,
    queryKey: quoteKeys.markets([]),
    queryFn: ({ signal }) => fetchQuotes([], signal),
    enabled: gated(true, options?.enabled),
  })
}

/** Held quotes for the markets, refreshed every second from the console's shared cache (pushed instead while the tab's stream is live). */
export function useQuotesQuery(markets: readonly string[], options?: QueryOptions<QuoteSnapshot>) {
  useStreamInterest(options?.enabled === false ? [] : markets)
  const interval = useStreamedInterval(1_000)
  return useQuery({
    refetchInterval: interval,
    refetchIntervalInBackground: false,
    staleTime: 0,
    ...options,
    queryKey: quoteKeys.markets(markets),
    queryFn: ({ signal }) => fetchQuotes(markets, signal),
    enabled: gated(markets.length > 0, options?.enabled),
  })
}
