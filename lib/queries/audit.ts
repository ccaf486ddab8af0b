"use client"

import { useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query"
import { z } from "zod"
import { apiFetch, toQuery } from "@/lib/queries/api"
import { auditKeys } from "@/lib/queries/keys"
import { type InfiniteQueryOptions, type MutationOptions, gated } from "@/lib/queries/options"

/** Filters of the audit trail, as GET /api/audit and its export take them. */
export type AuditFilters = {
  staff?: string | undefined
  operation?: string | undefined
  state?: string | undefined
  /** RFC 3339, inclusive. */
  from?: string | undefined
  to?: string | undefined
}

export const auditEntrySchema = z.object({
  id: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  resolved_at: z.string().nullable(),
  staff_email: z.string(),
  staff_role: z.string(),
  operation: z.string(),
  profile_id: z.string().nullable(),
  ref_id: z.string(),
  state: z.string(),
  record_id: z.string().nullable(),
  record_status: z.string().nullable(),
  attempts: z.number(),
  request: z.record(z.string(), z.unknown()),
  problem: z.object({ title: z.string(), status: z.number().nullable(), detail: z.string().nullable() }).nullable(),
})
export type AuditEntry = z.infer<typeof auditEntrySchema>

export const auditPageSchema = z.object({ items: z.array(auditEntrySchema), next_cursor: z.string().nullable() })
export type AuditPage = z.infer<typeof auditPageSchema>

export const reconcileReportSchema = z.object({
  examined: z.number(),
  resolved: z.number(),
  succeeded: z.number(),
  failed: z.number(),
  unresolved: z.number(),
})
export type ReconcileReport = z.infer<typeof reconcileReportSchema>

export function auditListUrl(filters: AuditFilters, cursor?: string, limit = 50): string {
  return `/api/audit${toQuery({ ...filters, limit, cursor })}`
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
    getNextPageParam: (last) => last.next_cursor ?? undefined,
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
