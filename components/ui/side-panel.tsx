"use client"

import { type ReactNode, type RefObject, useEffect, useId, useRef } from "react"

const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])'

/**
 * A panel that slides in from the right edge, on the native <dialog> element opened as a
 * modal: the page behind is inert, Tab and Shift+Tab cycle through the panel's own controls
 * (focus never leaves it), Escape closes it (reported through onClose), the title labels it,
 * and on closing the focus returns to `returnFocus` (the control that opened it). On
 * opening, the control marked `data-autofocus` (if any) takes the focus.
 */
export function SidePanel({
  open,
  onClose,
  title,
  children,
  footer,
  returnFocus,
  testId,
}: {
  open: boolean
  onClose: () => void
  title: string
  children: ReactNode
  footer?: ReactNode
  returnFocus?: RefObject<HTMLElement | null>
  testId?: string
}) {
  const ref = useRef<HTMLDialogElement>(null)
  const titleId = useId()
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
      className="side-panel fixed inset-y-0 right-0 left-auto m-0 h-dvh max-h-none w-full max-w-md border-l border-slate-200 bg-white p-0 shadow-xl"
    >
      {open ? (
        <div className="flex h-full flex-col">
          <h2 id={titleId} className="border-b border-slate-200 px-5 py-3 text-lg font-semibold">
            {title}
          </h2>
          <div className="min-h-0 flex-1 overflow-y-auto px-5 py-4">{children}</div>
          {footer ? <div className="border-t border-slate-200 px-5 py-3">{footer}</div> : null}
        </div>
      ) : null}
    </dialog>
  )
}
