import type { HTMLAttributes, ReactNode, TdHTMLAttributes, ThHTMLAttributes } from "react"
import { cn } from "@/components/ui/cn"

type Density = "normal" | "compact"
// Every cell's padding, set once on the table.
const PAD: Record<Density, string> = {
  normal: "[&_td]:px-3 [&_td]:py-2 [&_th]:px-3 [&_th]:py-2",
  compact: "[&_td]:px-2 [&_td]:py-1 [&_th]:px-2 [&_th]:py-1",
}

/**
 * The console's one table. Wide tables scroll sideways inside their own box, which is
 * `position: relative` so that screen-reader-only text (absolutely positioned) stays in it
 * instead of widening the page. `framed` draws the box's border for a table on its own;
 * inside a card, leave it off. The caption is for screen readers (the heading says it to
 * the eye).
 */
export function Table({
  caption,
  children,
  framed = false,
  density = "normal",
  className,
  tableClassName,
  testId,
  after,
  focusable = false,
}: {
  caption?: string
  /**
   * A table with nothing focusable in it (no links, no buttons) that may scroll sideways:
   * its box takes the focus, so a keyboard can scroll it (a region named by the caption).
   */
  focusable?: boolean
  children: ReactNode
  /** Inside the box, under the table: "Loading…", "Nothing matches". */
  after?: ReactNode
  framed?: boolean
  density?: Density
  className?: string
  /** e.g. a minimum width, past which the box scrolls. */
  tableClassName?: string
  testId?: string
}) {
  return (
    <div
      className={cn("relative w-full overflow-x-auto", framed && "rounded-lg border border-slate-200 bg-white shadow-sm", focusable && "focus-visible:outline-2 focus-visible:outline-blue-600", className)}
      {...(focusable ? { tabIndex: 0, role: "region", "aria-label": caption } : {})}
    >
      <table className={cn("w-full border-collapse text-left text-sm", PAD[density], tableClassName)} data-testid={testId}>
        {caption ? <caption className="sr-only">{caption}</caption> : null}
        {children}
      </table>
      {after}
    </div>
  )
}

/** The header row: one `Th` per column. */
export function TableHead({ children }: { children: ReactNode }) {
  return (
    <thead className="border-b border-slate-200 bg-slate-50 text-xs uppercase tracking-wide text-slate-700">
      <tr>{children}</tr>
    </thead>
  )
}

export function TableBody({ children }: { children: ReactNode }) {
  return <tbody>{children}</tbody>
}

type Align = { align?: "left" | "right" }

/** A column header. */
export function Th({ align, className, children, ...rest }: ThHTMLAttributes<HTMLTableCellElement> & Align) {
  return (
    <th scope="col" className={cn("font-semibold", align === "right" && "text-right", className)} {...rest}>
      {children}
    </th>
  )
}

/** A body row; `data-*` attributes pass through (tests and links find rows by them). */
export function Tr({ className, children, ...rest }: HTMLAttributes<HTMLTableRowElement> & Record<`data-${string}`, string | undefined>) {
  return (
    <tr className={cn("border-t border-slate-100 align-top first:border-t-0", className)} {...rest}>
      {children}
    </tr>
  )
}

/** A body cell. */
export function Td({ align, className, children, ...rest }: TdHTMLAttributes<HTMLTableCellElement> & Align & Record<`data-${string}`, string | undefined>) {
  return (
    <td className={cn(align === "right" && "text-right", className)} {...rest}>
      {children}
    </td>
  )
}

/** The cell that names its row (a balance's asset). */
export function RowHeader({ className, children }: { className?: string; children: ReactNode }) {
  return (
    <th scope="row" className={cn("text-left font-medium", className)}>
      {children}
    </th>
  )
}
