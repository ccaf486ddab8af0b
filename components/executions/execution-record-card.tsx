"use client"

import type { ReactNode } from "react"
import { useShownLive } from "@/components/notifications/live-records"
import { RecoveredAfter } from "@/components/intents/recovered-after"
import { ExecutionRecord } from "@/components/executions/execution-record"
import { executionSummary } from "@/components/executions/execution-summary"
import { StatusBadge } from "@/components/ui/badge"
import { Card } from "@/components/ui/card"
import { ProblemAlert } from "@/components/ui/problem-alert"
import { useExecutionQuery, useRefreshOnSettle } from "@/lib/queries/executions"
import { useTickRate } from "@/lib/queries/market-data"
import { isTerminalStatus } from "@/lib/schemas/constants"
import type { QuoteExecution } from "@/lib/schemas/records"

/**
 * A quote execution, kept live: polled every second until it is SETTLED, then left
 * alone; balances and lists are read again the moment it settles. The status change is
 * announced politely to screen readers.
 */
export function ExecutionRecordCard({
  profileId,
  id,
  initial,
  profileName,
  title = "Execution",
  actions,
  folded = false,
}: {
  profileId: string
  id: string
  initial?: QuoteExecution | undefined
  profileName?: string | undefined
  title?: ReactNode
  actions?: ReactNode
  /** A one-line summary with the status leads; every field is folded under it. */
  folded?: boolean
}) {
  const query = useExecutionQuery(profileId, id, initial ? { initialData: initial } : undefined)
  const execution = query.data
  const settled = execution ? isTerminalStatus(execution.status) : false
  const tick = useTickRate(execution?.market)
  useShownLive(id)
  useRefreshOnSettle(profileId, execution?.status)
  return (
    <Card title={title} actions={actions} className="scroll-mt-4">
      <p className="sr-only" aria-live="polite">
        {execution ? `Status ${execution.status}` : ""}
      </p>
      {execution ? (
        <>
          {!settled ? (
            <p className="mb-2 text-sm text-slate-600" data-testid="record-watching">
              Watching for settlement…
            </p>
          ) : null}
          {folded ? (
            <>
              <p className="flex flex-wrap items-center gap-x-2 gap-y-1 text-base font-semibold text-slate-900" data-testid="result-summary">
                <span className={execution.side === "BUY" ? "text-emerald-800" : "text-red-700"} aria-hidden>
                  {execution.side === "BUY" ? "▲" : "▼"}
                </span>
                <span className="tabular">{executionSummary(execution, tick)}</span>
                <span aria-hidden>—</span>
                <StatusBadge status={execution.status} />
              </p>
              <RecoveredAfter recordId={execution.id} />
              <details className="mt-2">
                <summary className="cursor-pointer text-sm font-medium text-blue-700">Details: ids, reference, times</summary>
                <ExecutionRecord execution={execution} profileName={profileName} tick={tick} compact />
              </details>
            </>
          ) : (
            <ExecutionRecord execution={execution} profileName={profileName} tick={tick} />
          )}
        </>
      ) : query.isPending ? (
        <p className="text-sm text-slate-600">Loading the execution…</p>
      ) : null}
      {query.error ? <ProblemAlert error={query.error} className="mt-3" /> : null}
    </Card>
  )
}
