import { cn } from "@/components/ui/cn"
import { Timestamp } from "@/components/ui/timestamp"

export type TimelineState = "done" | "pending"

/** One step of a record's story: what happened, when the record says it did, or that it is still to come. */
export interface TimelineStep {
  key: string
  label: string
  at: string | undefined
  state: TimelineState
  note?: string
}

/** A record's story as a vertical line of steps (a conversion's, a transfer's). */
export function StepTimeline({ steps }: { steps: readonly TimelineStep[] }) {
  return (
    <ol aria-label="Timeline" className="space-y-3 border-l-2 border-slate-200 pl-4" data-testid="timeline">
      {steps.map((step) => (
        <li key={step.key} className="relative" data-testid={`timeline-${step.key}`}>
          <span
            aria-hidden
            className={cn(
              "absolute -left-[1.4rem] top-1 size-3 rounded-full border-2",
              step.state === "done" ? "border-blue-700 bg-blue-700" : "border-slate-400 bg-white",
            )}
          />
          <p className="text-sm font-medium text-slate-900">
            {step.label}
            {step.state === "pending" ? <span className="ml-2 text-xs font-normal text-slate-600">(pending)</span> : null}
          </p>
          {step.at ? (
            <p className="text-sm text-slate-700">
              <Timestamp value={step.at} />
            </p>
          ) : null}
          {step.note ? <p className="text-xs text-slate-600">{step.note}</p> : null}
        </li>
      ))}
    </ol>
  )
}
