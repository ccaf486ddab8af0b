import type { ReactNode } from "react"

/** A record's fields, one labelled row each (an execution, an intent). */
export function DetailList({ testId, children }: { testId: string; children: ReactNode }) {
  return (
    <dl className="divide-y divide-slate-100" data-testid={testId}>
      {children}
    </dl>
  )
}

/** One field of a DetailList: its label beside its value, stacked on narrow screens. */
export function DetailRow({ label, children, testId }: { label: string; children: ReactNode; testId?: string }) {
  return (
    <div className="grid grid-cols-1 gap-1 py-2 sm:grid-cols-[12rem_1fr] sm:gap-4">
      <dt className="text-sm font-medium text-slate-600">{label}</dt>
      <dd className="min-w-0 text-sm text-slate-900" data-testid={testId}>
        {children}
      </dd>
    </div>
  )
}

/** One field of a record card's two-column grid (a `dl` with grid columns): label, then value, long ids broken anywhere. */
export function GridRow({ label, children, testId }: { label: string; children: ReactNode; testId?: string }) {
  return (
    <>
      <dt className="font-medium text-slate-600">{label}</dt>
      <dd className="min-w-0 break-all" data-testid={testId}>
        {children}
      </dd>
    </>
  )
}
