"use client"

import { useQuery } from "@tanstack/react-query"
import { z } from "zod"
import { apiFetch, toQuery } from "@/lib/queries/api"
import { quoteKeys } from "@/lib/queries/keys"
import { quoteSchema } from "@/lib/schemas/records"

const quoteSnapshotSchema = z.object({ items: z.array(quoteSchema), fetched_at: z.string(), stale: z.boolean() })
export type QuoteSnapshot = z.infer<typeof quoteSnapshotSchema>

export function fetchQuotes(markets: readonly string[], signal?: AbortSignal): Promise<QuoteSnapshot> {
  return apiFetch(`/api/quotes${toQuery({ markets })}`, { signal, schema: quoteSnapshotSchema })
}

/** Held quotes for the markets, refreshed every second from the console's shared cache. */
export function useQuotesQuery(markets: readonly string[], options: { enabled?: boolean } = {}) {
  return useQuery({
    queryKey: quoteKeys.markets(markets),
    queryFn: ({ signal }) => fetchQuotes(markets, signal),
    enabled: (options.enabled ?? true) && markets.length > 0,
    refetchInterval: 1_000,
    refetchIntervalInBackground: false,
    staleTime: 0,
  })
}
