import type { ReactNode } from "react"
import { cn } from "@/components/ui/cn"

const TONES = {
  neutral: "bg-slate-100 text-slate-800 ring-slate-300",
  info: "bg-blue-50 text-blue-800 ring-blue-300",
  success: "bg-emerald-50 text-emerald-800 ring-emerald-300",
  warning: "bg-amber-50 text-amber-900 ring-amber-300",
  danger: "bg-red-50 text-red-800 ring-red-300",
} as const

export type BadgeTone = keyof typeof TONES

export function Badge({ tone = "neutral", children, className }: { tone?: BadgeTone; children: ReactNode; className?: string }) {
  return (
    <span className={cn("inline-flex items-center rounded-full px-2 py-0.5 text-xs font-semibold ring-1 ring-inset", TONES[tone], className)}>
      {children}
    </span>
  )
}

const STATUS_TONES: Record<string, BadgeTone> = {
  CREATED: "info",
  PROCESSING: "info",
  SETTLED: "success",
  COMPLETED: "success",
  CANCELLED: "danger",
  FAILED: "danger",
  PENDING: "warning",
  REJECTED: "danger",
}

/**
 * What a conversion's status means where its word alone would mislead: an orchestration's
 * PENDING is the service's own approval, not the console's four-eyes (an intent's or a
 * request's PENDING is the console's: no note there).
 */
const CONVERSION_NOTES: Record<string, string> = {
  PENDING: "waiting for approval at the service",
  REJECTED: "rejected at the service, nothing moved",
}

/**
 * Status of a record: CREATED and PROCESSING (Orchestrations) are in flight, SETTLED and
 * COMPLETED done, CANCELLED and FAILED stopped; an orchestration PENDING waits for the
 * service's own approval (not the console's four-eyes) and REJECTED is final, nothing moved.
 */
export function StatusBadge({ status, of }: { status: string; of?: "conversion" }) {
  const tone: BadgeTone = STATUS_TONES[status] ?? "neutral"
  const note = of === "conversion" ? CONVERSION_NOTES[status] : undefined
  return (
    <Badge tone={tone}>
      <span data-testid="status">{status}</span>
      {note ? (
        <span data-testid="status-note" className="ml-1 font-normal">
          · {note}
        </span>
      ) : null}
    </Badge>
  )
}
