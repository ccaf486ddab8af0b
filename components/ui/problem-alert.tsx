"use client"

import { Alert } from "@/components/ui/alert"
import { Button } from "@/components/ui/button"
import { formatAmount } from "@/lib/format"
import { ApiNetworkError, ApiProblemError } from "@/lib/queries/api"

function text(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined
}

/** What went wrong, in plain words a treasury operator can act on. */
export function describeError(error: unknown): { title: string; detail?: string | undefined } {
  if (error instanceof ApiNetworkError) {
    return { title: "No answer from the console", detail: "Check your connection and try again; a retry of the same submission never places it twice." }
  }
  if (!(error instanceof ApiProblemError)) return { title: "Something went wrong", detail: error instanceof Error ? error.message : undefined }
  const { problem } = error
  const meta = problem.meta ?? {}
  switch (problem.code) {
    case "expired":
      return { title: "The quote expired", detail: "Get a fresh quote and confirm again." }
    case "insufficient_funds": {
      const asset = text(meta.asset) ?? ""
      const needed = text(meta.needed)
      const available = text(meta.available)
      return {
        title: "Insufficient funds",
        detail: needed && available ? `Needed ${formatAmount(needed, asset)} ${asset}, available ${formatAmount(available, asset)} ${asset}.` : problem.detail,
      }
    }
    case "rejected":
      return { title: "Rejected", detail: "The market moved; get a fresh quote." }
    case "already_exists":
      return { title: "Already exists", detail: "This reference was already used; the existing record is shown." }
  }
  if (problem.code?.startsWith("step_up_")) {
    return { title: problem.code === "step_up_required" ? "Your passkey is needed" : "Passkey refused", detail: problem.detail }
  }
  if (problem.status === 400) {
    const fields = error.fields
    const list = Object.entries(fields).map(([field, rule]) => `${field}: ${rule}`)
    return { title: "Check the form", detail: list.length > 0 ? list.join("; ") : problem.detail }
  }
  if (problem.status === 403) return { title: "Not allowed", detail: problem.detail }
  if (problem.status === 404) return { title: "Not found", detail: problem.detail }
  if (problem.status === 429) return { title: "Too many requests", detail: "The service's rate limit was reached; try again in a moment." }
  if (problem.status === 504) return { title: "The service did not answer in time", detail: problem.detail }
  if (problem.status >= 500) return { title: "The service is unavailable", detail: problem.detail }
  return { title: problem.title, detail: problem.detail }
}

export function ProblemAlert({ error, className }: { error: unknown; className?: string }) {
  if (!error) return null
  const { title, detail } = describeError(error)
  return (
    <Alert tone="danger" title={title} className={className}>
      {detail}
    </Alert>
  )
}

/** A record that could not be read: the problem, and a button that asks again. */
export function ProblemWithRetry({ error, onRetry }: { error: unknown; onRetry: () => void }) {
  return (
    <div className="space-y-3">
      <ProblemAlert error={error} />
      <Button variant="secondary" onClick={onRetry}>
        Try again
      </Button>
    </div>
  )
}

/** Under a record already shown: its last refresh failed, the page keeps asking (nothing when `error` is null). */
export function RefreshProblem({ error }: { error: unknown }) {
  if (!error) return null
  return (
    <p role="status" className="text-sm text-amber-900">
      Could not refresh the status just now ({describeError(error).title.toLowerCase()}); still trying.
    </p>
  )
}
