"use client"

import { useMemo, useState } from "react"
import { AuditFiltersForm } from "@/components/audit/audit-filters"
import type { AuditFilterForm } from "@/components/audit/filters-schema"
import { AuditTable } from "@/components/audit/audit-table"
import { dayBoundary } from "@/components/audit/format"
import { Alert } from "@/components/ui/alert"
import { Button } from "@/components/ui/button"
import { ExportCsvLink } from "@/components/ui/export-csv-link"
import { ProblemAlert } from "@/components/ui/problem-alert"
import { type AuditFilters, auditExportUrl, useAuditInfiniteQuery, useReconcileMutation } from "@/lib/queries/audit"
import { useProfilesQuery } from "@/lib/queries/profiles"

function toApiFilters(form: AuditFilterForm): AuditFilters {
  return {
    staff: form.staff.trim() || undefined,
    operation: form.operation || undefined,
    state: form.state || undefined,
    from: form.from ? dayBoundary(form.from, "start") : undefined,
    to: form.to ? dayBoundary(form.to, "end") : undefined,
  }
}

/** Keeps the filters in the address, so a filtered view can be bookmarked or shared. */
function rememberInAddress(form: AuditFilterForm) {
  const search = new URLSearchParams()
  for (const [key, value] of Object.entries(form)) if (value) search.set(key, value)
  const query = search.toString()
  window.history.replaceState(null, "", query ? `?${query}` : window.location.pathname)
}

/** `reconcileAfterMs`: the server's RECONCILE_AFTER_MS, the age below which an intent is left to its own request. */
function ReconcileButton({ reconcileAfterMs }: { reconcileAfterMs: number }) {
  const reconcile = useReconcileMutation()
  const report = reconcile.data
  return (
    <div className="space-y-2">
      <Button variant="secondary" busy={reconcile.isPending} onClick={() => reconcile.mutate()}>
        Reconcile now
      </Button>
      {report ? (
        <Alert tone={report.unresolved > 0 ? "warning" : "success"} title={`Reconciled: ${report.resolved} ${report.resolved === 1 ? "intent" : "intents"} resolved`}>
          <span data-testid="reconcile-report">
            {report.succeeded} succeeded, {report.failed} failed, {report.unresolved} still unknown, of {report.examined} examined. Intents
            younger than {reconcileAfterMs / 1000} seconds are left to their own request.
          </span>
        </Alert>
      ) : null}
      <ProblemAlert error={reconcile.error} />
    </div>
  )
}

export function AuditLog({ initialFilters, reconcileAfterMs }: { initialFilters: AuditFilterForm; reconcileAfterMs: number }) {
  const [form, setForm] = useState(initialFilters)
  const filters = useMemo(() => toApiFilters(form), [form])
  const audit = useAuditInfiniteQuery(filters)
  const profiles = useProfilesQuery()
  const entries = useMemo(() => audit.data?.pages.flatMap((page) => page.items) ?? [], [audit.data])
  const profileNames = useMemo(() => new Map((profiles.data ?? []).map((p) => [p.id, p.nickname])), [profiles.data])
  const staffSeen = useMemo(() => [...new Set(entries.map((e) => e.staff_email))].sort(), [entries])
  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-start justify-between gap-4">
        <div>
          <h1 className="text-2xl font-semibold">Audit trail</h1>
          <p className="text-sm text-slate-700">Every execution, conversion and cancel sent through the console: who, when, and whether it went through.</p>
        </div>
        <div className="flex flex-wrap items-start gap-2">
          <ExportCsvLink href={auditExportUrl(filters)} />
          <ReconcileButton reconcileAfterMs={reconcileAfterMs} />
        </div>
      </div>
      <AuditFiltersForm
        initial={initialFilters}
        staffSeen={staffSeen}
        onApply={(next) => {
          setForm(next)
          rememberInAddress(next)
        }}
      />
      <ProblemAlert error={audit.error} />
      {audit.isPending ? (
        <p role="status" className="text-sm text-slate-700">
          Loading the audit trail…
        </p>
      ) : entries.length === 0 && !audit.error ? (
        <p role="status" className="rounded-lg border border-dashed border-slate-300 bg-white p-6 text-center text-sm text-slate-700">
          No intents match these filters.
        </p>
      ) : (
        <>
          <AuditTable entries={entries} profileNames={profileNames} />
          <div className="flex items-center justify-between gap-3">
            <p className="text-sm text-slate-700" role="status" data-testid="audit-count">
              Showing {entries.length} {entries.length === 1 ? "intent" : "intents"}
              {audit.hasNextPage ? "; more are older" : ""}
            </p>
            {audit.hasNextPage ? (
              <Button variant="secondary" busy={audit.isFetchingNextPage} onClick={() => void audit.fetchNextPage()}>
                Load more
              </Button>
            ) : null}
          </div>
        </>
      )}
    </div>
  )
}
