"use client"

import { useQuery } from "@tanstack/react-query"
import { apiFetch, toQuery } from "@/lib/queries/api"
import { marketKeys, overviewKeys } from "@/lib/queries/keys"
import { type QueryOptions, gated } from "@/lib/queries/options"
import { useStreamInterest, useStreamedInterval } from "@/lib/queries/stream"
import type { ChartRange, MarketHistory, MarketPrices } from "@/lib/schemas/market-data"
import type { Overview } from "@/lib/schemas/overview"

// Schemas load with the first answer: zod stays out of the pages' first load.
const historySchema = () => import("@/lib/schemas/market-data").then((m) => m.marketHistorySchema)
const pricesSchema = () => import("@/lib/schemas/market-data").then((m) => m.marketPricesSchema)
const overviewSchema = () => import("@/lib/schemas/overview").then((m) => m.overviewSchema)

export function fetchMarketHistory(market: string, range: ChartRange, signal?: AbortSignal): Promise<MarketHistory> {
  return apiFetch(`/api/markets/${encodeURIComponent(market)}/history${toQuery({ range })}`, { signal, schema: historySchema })
}

/** A chart range's prices; the server's cache refreshes them at most every 10 s, so asking more often gains nothing. */
export function useMarketHistoryQuery(market: string | null, range: ChartRange, options?: QueryOptions<MarketHistory>) {
  return useQuery({
    refetchInterval: 10_000,
    staleTime: 10_000,
    placeholderData: (previous) => previous,
    ...options,
    queryKey: marketKeys.history(market ?? "", range),
    queryFn: ({ signal }) => fetchMarketHistory(market ?? "", range, signal),
    enabled: gated(market !== null && market !== "", options?.enabled),
  })
}

export function fetchMarketPrices(signal?: AbortSignal): Promise<MarketPrices> {
  return apiFetch("/api/markets/prices", { signal, schema: pricesSchema })
}

// Current and 24-hours-ago prices of the USD markets (the desk's change column); they move slowly, so once a minute.
const pricesQuery = {
  refetchInterval: 60_000,
  staleTime: 30_000,
  queryKey: marketKeys.prices(),
  queryFn: ({ signal }: { signal: AbortSignal }) => fetchMarketPrices(signal),
} as const

/** Current and 24-hours-ago prices of the USD markets, and their tick rates. */
export function useMarketPricesQuery(options?: QueryOptions<MarketPrices>) {
  return useQuery({ ...pricesQuery, ...options, queryKey: pricesQuery.queryKey, queryFn: pricesQuery.queryFn, enabled: gated(true, options?.enabled) })
}

/**
 * The service's tick_rate of `market` (the decimals its prices are shown with, lib/format's
 * formatPrice `tick`); undefined until the prices answer, or for a market it did not list.
 * It selects the tick alone: a caller re-renders when the tick changes, not each time the
 * prices it shares a query with move (that re-rendered the whole order ticket).
 */
export function useTickRate(market: string | null | undefined): string | undefined {
  const { data } = useQuery({ ...pricesQuery, select: (prices: MarketPrices) => (market ? prices.tick_rates[market] : undefined) })
  return data
}

export function fetchOverview(signal?: AbortSignal): Promise<Overview> {
  return apiFetch("/api/overview", { signal, schema: overviewSchema })
}

/**
 * The overview, refreshed every 3 s (the server shares one round of service calls between
 * dashboards). While the tab's stream carries the `overview` topic it is pushed instead: when
 * a change reaches the database (a deposit the event reader processed is in the live feed
 * as soon as the service's balances are read again) and at this pace for the prices; the
 * polling stops until the stream drops.
 */
export const OVERVIEW_POLL_MS = 3_000

export function useOverviewQuery(options?: QueryOptions<Overview>) {
  useStreamInterest([], [], options?.enabled === false ? [] : ["overview"])
  const interval = useStreamedInterval(OVERVIEW_POLL_MS, "overview")
  return useQuery({
    refetchInterval: interval,
    refetchIntervalInBackground: false,
    ...options,
    queryKey: overviewKeys.all,
    queryFn: ({ signal }) => fetchOverview(signal),
    enabled: gated(true, options?.enabled),
  })
}
