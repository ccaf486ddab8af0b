"use client"

import { useQuery } from "@tanstack/react-query"
import { apiFetch } from "@/lib/queries/api"
import type { PreTradeFacts } from "@/lib/schemas/pre-trade"

const preTradeSchema = () => import("@/lib/schemas/pre-trade").then((m) => m.preTradeFactsSchema)

export const preTradeKeys = {
  all: ["pre-trade"] as const,
}

export function fetchPreTradeFacts(signal?: AbortSignal): Promise<PreTradeFacts> {
  return apiFetch("/api/me/limits", { signal, schema: preTradeSchema })
}

/**
 * The signed-in staff member's limits, used today and thresholds (GET /api/me/limits):
 * what the ticket and the conversion form check an order against before Confirm. Asked
 * again every 10 s and after every submission, so "used today" follows the desk.
 */
export function usePreTradeFactsQuery(enabled = true) {
  return useQuery({ queryKey: preTradeKeys.all, queryFn: ({ signal }) => fetchPreTradeFacts(signal), staleTime: 5_000, refetchInterval: 10_000, enabled })
}
