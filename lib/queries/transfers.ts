"use client"

import { skipToken, useInfiniteQuery, useQuery } from "@tanstack/react-query"
import { apiFetch, toQuery } from "@/lib/queries/api"
import { transferKeys } from "@/lib/queries/keys"
import { type InfiniteQueryOptions, type QueryOptions, gated } from "@/lib/queries/options"
import type { Transfer, TransferPage } from "@/lib/schemas/transfer"

// The answers' schemas, loaded with the first answer: pages start without zod.
const transferSchema = () => import("@/lib/schemas/transfer").then((m) => m.transferSchema)
const transferPageSchema = () => import("@/lib/schemas/transfer").then((m) => m.transferPageSchema)

/** GET /api/transfers' filters (one value each). */
export type TransferFilters = {
  profile_id?: string | undefined
  type?: string | undefined
  status?: string | undefined
  ref_id?: string | undefined
  "created_at.begin"?: string | undefined
  "created_at.end"?: string | undefined
}

export function fetchTransfer(id: string, signal?: AbortSignal): Promise<Transfer> {
  return apiFetch(`/api/transfers/${encodeURIComponent(id)}`, { signal, schema: transferSchema })
}

/** One transfer, read again every 2 s while it is PENDING at the service. */
export function useTransferQuery(id: string | null, options?: QueryOptions<Transfer>) {
  return useQuery({
    refetchInterval: (query) => (query.state.data && query.state.data.status !== "PENDING" ? false : 2_000),
    ...options,
    queryKey: transferKeys.detail(id ?? ""),
    queryFn: id ? ({ signal }) => fetchTransfer(id, signal) : skipToken,
    enabled: gated(Boolean(id), options?.enabled),
  })
}

export function transferListUrl(filters: TransferFilters, cursor?: string, limit = 50): string {
  return `/api/transfers${toQuery({ ...filters, limit, page_cursor: cursor })}`
}

export function transferExportUrl(filters: TransferFilters): string {
  return `/api/transfers/export${toQuery(filters)}`
}

export function useTransfersInfiniteQuery(filters: TransferFilters, options?: InfiniteQueryOptions<TransferPage>) {
  return useInfiniteQuery({
    ...options,
    queryKey: transferKeys.list(filters),
    queryFn: ({ pageParam, signal }) => apiFetch(transferListUrl(filters, pageParam), { signal, schema: transferPageSchema }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_page_cursor || undefined,
    enabled: gated(true, options?.enabled),
  })
}
