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
}

/**
 * Status of a record: CREATED and PROCESSING (Orchestrations) are in flight, SETTLED and
 * COMPLETED done, CANCELLED and FAILED stopped.
 */
export function StatusBadge({ status }: { status: string }) {
  const tone: BadgeTone = STATUS_TONES[status] ?? "neutral"
  return (
    <Badge tone={tone}>
      <span data-testid="status">{status}</span>
    </Badge>
  )
}
