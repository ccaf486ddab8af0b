"use client"

import { useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query"
import { apiFetch, toQuery } from "@/lib/queries/api"
import { auditKeys } from "@/lib/queries/keys"
import { type InfiniteQueryOptions, type MutationOptions, gated } from "@/lib/queries/options"
import { type AuditPage, type ReconcileReport, auditPageSchema, reconcileReportSchema } from "@/lib/schemas/audit"

/** Filters of the audit trail, as GET /api/audit and its export take them. */
export type AuditFilters = {
  staff?: string | undefined
  operation?: string | undefined
  state?: string | undefined
  /** RFC 3339, inclusive. */
  from?: string | undefined
  to?: string | undefined
}

export type { AuditEntry, AuditPage, ReconcileReport } from "@/lib/schemas/audit"

export function auditListUrl(filters: AuditFilters, pageCursor?: string, limit = 50): string {
  return `/api/audit${toQuery({ ...filters, limit, page_cursor: pageCursor })}`
}

export function auditExportUrl(filters: AuditFilters): string {
  return `/api/audit/export${toQuery(filters)}`
}

/** The audit trail, newest first, a page at a time ("Load more"). */
export function useAuditInfiniteQuery(filters: AuditFilters, options?: InfiniteQueryOptions<AuditPage>) {
  return useInfiniteQuery({
    ...options,
    queryKey: auditKeys.list(filters),
    queryFn: ({ pageParam, signal }) => apiFetch(auditListUrl(filters, pageParam), { signal, schema: auditPageSchema }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_page_cursor || undefined,
    enabled: gated(true, options?.enabled),
  })
}

/** Runs the reconciler now; the trail is re-read afterwards. */
export function useReconcileMutation(options?: MutationOptions<ReconcileReport, void>) {
  const queryClient = useQueryClient()
  return useMutation({
    ...options,
    mutationFn: () => apiFetch("/api/audit/reconcile", { method: "POST", schema: reconcileReportSchema }),
    onSuccess: (report, ...rest) => {
      void queryClient.invalidateQueries({ queryKey: auditKeys.all })
      return options?.onSuccess?.(report, ...rest)
    },
  })
}
