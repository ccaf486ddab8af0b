import type { ReactNode } from "react"
import { cn } from "@/components/ui/cn"

export function Card({ title, actions, children, className }: { title?: ReactNode; actions?: ReactNode; children: ReactNode; className?: string }) {
  return (
    <section className={cn("min-w-0 rounded-lg border border-slate-200 bg-white shadow-sm", className)}>
      {title || actions ? (
        <header className="flex items-center justify-between gap-4 border-b border-slate-200 px-4 py-3">
          {title ? <h2 className="text-base font-semibold text-slate-900">{title}</h2> : <span />}
          {actions}
        </header>
      ) : null}
      <div className="p-4">{children}</div>
    </section>
  )
}
