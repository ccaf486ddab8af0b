"use client"

import { type ReactNode, type RefObject, useEffect, useId, useRef } from "react"

const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])'

const PLACEMENT = {
  // In the middle of the page: a review, a confirmation, the keyboard help.
  center: {
    dialog: "m-auto w-full max-w-lg rounded-lg border border-slate-200 bg-white p-0 shadow-xl",
    frame: "flex flex-col",
    body: "px-5 py-4",
    footer: "flex justify-end gap-2 border-t border-slate-200 px-5 py-3",
  },
  // A panel at full height that slides in from the right edge (app/globals.css: .side-panel): the inbox.
  right: {
    dialog: "side-panel fixed inset-y-0 right-0 left-auto m-0 h-dvh max-h-none w-full max-w-md border-l border-slate-200 bg-white p-0 shadow-xl",
    frame: "flex h-full flex-col",
    body: "min-h-0 flex-1 overflow-y-auto px-5 py-4",
    footer: "border-t border-slate-200 px-5 py-3",
  },
} as const

/**
 * A modal on the native <dialog> element, in the middle of the page or as a panel from the
 * right edge (`placement`). The page behind is inert; Tab and Shift+Tab cycle through the
 * dialog's own controls (focus never leaves it for the browser's); Escape closes it
 * (reported through onClose); the title labels it. On opening, the control marked
 * `data-autofocus` (if any) takes the focus instead of the first one; on closing, the focus
 * returns to `returnFocus` when given (the control that opened it), else where the browser
 * puts it back.
 */
export function Dialog({
  open,
  onClose,
  title,
  children,
  footer,
  placement = "center",
  returnFocus,
  testId,
}: {
  open: boolean
  onClose: () => void
  title: string
  children: ReactNode
  footer?: ReactNode
  placement?: keyof typeof PLACEMENT
  returnFocus?: RefObject<HTMLElement | null>
  testId?: string
}) {
  const ref = useRef<HTMLDialogElement>(null)
  const titleId = useId()
  const classes = PLACEMENT[placement]
  useEffect(() => {
    const dialog = ref.current
    if (!dialog) return
    if (open && !dialog.open) {
      dialog.showModal()
      dialog.querySelector<HTMLElement>("[data-autofocus]")?.focus()
    }
    if (!open && dialog.open) {
      dialog.close()
      returnFocus?.current?.focus()
    }
  }, [open, returnFocus])
  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      data-testid={testId}
      onClose={onClose}
      onCancel={(event) => {
        event.preventDefault()
        onClose()
      }}
      onKeyDown={(event) => {
        if (event.key !== "Tab") return
        const controls = [...(ref.current?.querySelectorAll<HTMLElement>(FOCUSABLE) ?? [])].filter((el) => el.offsetParent !== null || el === document.activeElement)
        const first = controls[0]
        const last = controls[controls.length - 1]
        if (!first || !last) return
        if (event.shiftKey && document.activeElement === first) {
          event.preventDefault()
          last.focus()
        } else if (!event.shiftKey && document.activeElement === last) {
          event.preventDefault()
          first.focus()
        }
      }}
      className={classes.dialog}
    >
      {open ? (
        <div className={classes.frame}>
          <h2 id={titleId} className="border-b border-slate-200 px-5 py-3 text-lg font-semibold">
            {title}
          </h2>
          <div className={classes.body}>{children}</div>
          {footer ? <div className={classes.footer}>{footer}</div> : null}
        </div>
      ) : null}
    </dialog>
  )
}
