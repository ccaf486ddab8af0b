"use client"

import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { apiFetch, toQuery } from "@/lib/queries/api"
import { executionKeys, profileKeys } from "@/lib/queries/keys"
import type { QuoteExecutionCreate } from "@/lib/schemas/quote-execution"
import { isTerminalStatus } from "@/lib/schemas/constants"
import type { QuoteExecution } from "@/lib/schemas/records"

// The answers' schemas, loaded with the first answer: pages start without zod.
const quoteExecutionSchema = () => import("@/lib/schemas/records").then((m) => m.quoteExecutionSchema)
const quoteExecutionPageSchema = () => import("@/lib/schemas/records").then((m) => m.quoteExecutionPageSchema)

export type ExecutionFilters = {
  market?: string | undefined
  side?: string | undefined
  status?: string | undefined
  "created_at.begin"?: string | undefined
  "created_at.end"?: string | undefined
}

const base = (profileId: string) => `/api/profiles/${encodeURIComponent(profileId)}/quote-executions`

export function fetchExecution(profileId: string, id: string, signal?: AbortSignal): Promise<QuoteExecution> {
  return apiFetch(`${base(profileId)}/${encodeURIComponent(id)}`, { signal, schema: quoteExecutionSchema })
}

/** One execution, polled every second until it is SETTLED, then left alone. */
export function useExecutionQuery(profileId: string | null, id: string | null, initial?: QuoteExecution) {
  return useQuery({
    queryKey: executionKeys.detail(profileId ?? "", id ?? ""),
    queryFn: ({ signal }) => fetchExecution(profileId!, id!, signal),
    enabled: Boolean(profileId && id),
    initialData: initial,
    refetchInterval: (query) => (query.state.data && isTerminalStatus(query.state.data.status) ? false : 1_000),
  })
}

export function executionListUrl(profileId: string, filters: ExecutionFilters, cursor?: string, limit = 25): string {
  return `${base(profileId)}${toQuery({ ...filters, limit, page_cursor: cursor })}`
}

export function executionExportUrl(profileId: string, filters: ExecutionFilters): string {
  return `${base(profileId)}/export${toQuery(filters)}`
}

export function useExecutionsInfiniteQuery(profileId: string | null, filters: ExecutionFilters) {
  return useInfiniteQuery({
    queryKey: executionKeys.list(profileId ?? "", filters),
    queryFn: ({ pageParam, signal }) =>
      apiFetch(executionListUrl(profileId!, filters, pageParam), { signal, schema: quoteExecutionPageSchema }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_page_cursor || undefined,
    enabled: Boolean(profileId),
  })
}

/** Executes a held quote; the caller's ref_id makes retries and double clicks safe. */
export function useExecuteQuoteMutation(profileId: string | null) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (body: QuoteExecutionCreate & { ref_id: string }) =>
      apiFetch(base(profileId!), { method: "POST", body, schema: quoteExecutionSchema }),
    onSuccess: (record) => {
      queryClient.setQueryData(executionKeys.detail(record.profile_id, record.id), record)
      void queryClient.invalidateQueries({ queryKey: executionKeys.all })
      void queryClient.invalidateQueries({ queryKey: profileKeys.balances(record.profile_id) })
    },
  })
}
