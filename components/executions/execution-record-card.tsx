"use client"

import type { ReactNode } from "react"
import { ExecutionRecord } from "@/components/executions/execution-record"
import { Card } from "@/components/ui/card"
import { ProblemAlert } from "@/components/ui/problem-alert"
import { useExecutionQuery } from "@/lib/queries/executions"
import { isTerminalStatus } from "@/lib/schemas/constants"
import type { QuoteExecution } from "@/lib/schemas/records"

/**
 * A quote execution, kept live: polled every second until it is SETTLED, then left
 * alone. The status change is announced politely to screen readers.
 */
export function ExecutionRecordCard({
  profileId,
  id,
  initial,
  profileName,
  title = "Execution",
  actions,
}: {
  profileId: string
  id: string
  initial?: QuoteExecution | undefined
  profileName?: string | undefined
  title?: ReactNode
  actions?: ReactNode
}) {
  const query = useExecutionQuery(profileId, id, initial ? { initialData: initial } : undefined)
  const execution = query.data
  const settled = execution ? isTerminalStatus(execution.status) : false
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
          <ExecutionRecord execution={execution} profileName={profileName} />
        </>
      ) : query.isPending ? (
        <p className="text-sm text-slate-600">Loading the execution…</p>
      ) : null}
      {query.error ? <ProblemAlert error={query.error} className="mt-3" /> : null}
    </Card>
  )
}
