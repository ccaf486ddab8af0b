"use client"

import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { apiFetch, toQuery } from "@/lib/queries/api"
import { conversionKeys, profileKeys } from "@/lib/queries/keys"
import type { ConversionCreate } from "@/lib/schemas/conversion"
import { isTerminalStatus } from "@/lib/schemas/constants"
import type { Conversion } from "@/lib/schemas/records"

// The answers' schemas, loaded with the first answer: pages start without zod.
const conversionSchema = () => import("@/lib/schemas/records").then((m) => m.conversionSchema)
const conversionPageSchema = () => import("@/lib/schemas/records").then((m) => m.conversionPageSchema)

export type ConversionFilters = {
  profile_id?: string | undefined
  ref_id?: string | undefined
  "created_at.begin"?: string | undefined
  "created_at.end"?: string | undefined
  "updated_at.begin"?: string | undefined
  "updated_at.end"?: string | undefined
}

export function fetchConversion(id: string, signal?: AbortSignal): Promise<Conversion> {
  return apiFetch(`/api/conversions/${encodeURIComponent(id)}`, { signal, schema: conversionSchema })
}

/** One conversion, polled every second until SETTLED or CANCELLED. */
export function useConversionQuery(id: string | null, initial?: Conversion) {
  return useQuery({
    queryKey: conversionKeys.detail(id ?? ""),
    queryFn: ({ signal }) => fetchConversion(id!, signal),
    enabled: Boolean(id),
    initialData: initial,
    refetchInterval: (query) => (query.state.data && isTerminalStatus(query.state.data.status) ? false : 1_000),
  })
}

export function conversionListUrl(filters: ConversionFilters, cursor?: string, limit = 25): string {
  return `/api/conversions${toQuery({ ...filters, limit, page_cursor: cursor })}`
}

export function conversionExportUrl(filters: ConversionFilters): string {
  return `/api/conversions/export${toQuery(filters)}`
}

export function useConversionsInfiniteQuery(filters: ConversionFilters, options: { enabled?: boolean } = {}) {
  return useInfiniteQuery({
    queryKey: conversionKeys.list(filters),
    queryFn: ({ pageParam, signal }) => apiFetch(conversionListUrl(filters, pageParam), { signal, schema: conversionPageSchema }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_page_cursor || undefined,
    enabled: options.enabled ?? true,
  })
}

export function useCreateConversionMutation() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (body: ConversionCreate & { ref_id: string }) =>
      apiFetch("/api/conversions", { method: "POST", body, schema: conversionSchema }),
    onSuccess: (record) => {
      queryClient.setQueryData(conversionKeys.detail(record.id), record)
      void queryClient.invalidateQueries({ queryKey: conversionKeys.all })
      if (record.profile_id) void queryClient.invalidateQueries({ queryKey: profileKeys.balances(record.profile_id) })
    },
  })
}

export function useCancelConversionMutation() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (id: string) =>
      apiFetch(`/api/conversions/${encodeURIComponent(id)}`, { method: "DELETE", schema: conversionSchema }),
    onSuccess: (record) => {
      queryClient.setQueryData(conversionKeys.detail(record.id), record)
      void queryClient.invalidateQueries({ queryKey: conversionKeys.all })
      if (record.profile_id) void queryClient.invalidateQueries({ queryKey: profileKeys.balances(record.profile_id) })
    },
  })
}
