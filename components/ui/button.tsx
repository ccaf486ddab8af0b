import type { ButtonHTMLAttributes, MouseEvent, Ref } from "react"
import { cn } from "@/components/ui/cn"

// `aria-disabled` styles mirror `disabled`: a button that is busy or held stays focusable.
const VARIANTS = {
  primary:
    "bg-blue-700 text-white hover:bg-blue-800 disabled:bg-slate-300 disabled:text-slate-600 aria-disabled:bg-slate-300 aria-disabled:text-slate-600",
  secondary: "border border-slate-300 bg-white text-slate-900 hover:bg-slate-100 disabled:text-slate-400 aria-disabled:text-slate-500",
  danger: "bg-red-700 text-white hover:bg-red-800 disabled:bg-slate-300 disabled:text-slate-600 aria-disabled:bg-slate-300 aria-disabled:text-slate-600",
  buy: "bg-emerald-700 text-white hover:bg-emerald-800 disabled:bg-slate-300 disabled:text-slate-600 aria-disabled:bg-slate-300 aria-disabled:text-slate-600",
  sell: "bg-red-700 text-white hover:bg-red-800 disabled:bg-slate-300 disabled:text-slate-600 aria-disabled:bg-slate-300 aria-disabled:text-slate-600",
  ghost: "text-slate-700 hover:bg-slate-100 disabled:text-slate-400 aria-disabled:text-slate-500",
} as const

const SIZES = { sm: "h-8 px-3 text-sm", md: "h-10 px-4 text-sm", lg: "h-12 px-6 text-base" } as const

export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  variant?: keyof typeof VARIANTS
  size?: keyof typeof SIZES
  /** A request is in flight: shows a spinner and ignores clicks (see `held`). */
  busy?: boolean
  /**
   * Unavailable for a moment (something is in flight), without `disabled`: the button
   * keeps the keyboard focus, says `aria-disabled`, and ignores clicks and Enter.
   * A natively disabled button that has the focus drops it to the page's body.
   */
  held?: boolean
  ref?: Ref<HTMLButtonElement>
}

export function Button({ variant = "primary", size = "md", busy = false, held = false, className, children, disabled, type, onClick, ...rest }: ButtonProps) {
  const inert = (busy || held) && !disabled
  return (
    <button
      type={type ?? "button"}
      className={cn(
        "inline-flex items-center justify-center gap-2 rounded-md font-medium transition-colors disabled:cursor-not-allowed aria-disabled:cursor-not-allowed",
        VARIANTS[variant],
        SIZES[size],
        className,
      )}
      disabled={disabled}
      aria-disabled={inert || undefined}
      aria-busy={busy || undefined}
      onClick={(event: MouseEvent<HTMLButtonElement>) => {
        // Also stops a submit button's form submission (Enter in a field clicks it too).
        if (inert) {
          event.preventDefault()
          return
        }
        onClick?.(event)
      }}
      {...rest}
    >
      {busy ? <span className="size-3 animate-spin rounded-full border-2 border-current border-t-transparent" aria-hidden /> : null}
      {children}
    </button>
  )
}
