"use client"

import { type ReactNode, useEffect, useId, useRef } from "react"

/**
 * A modal on the native <dialog> element: focus is trapped and restored by the browser,
 * Escape closes it (reported through onClose), and the title labels it. On opening, the
 * control marked `data-autofocus` (if any) takes the focus instead of the first one.
 */
export function Dialog({
  open,
  onClose,
  title,
  children,
  footer,
}: {
  open: boolean
  onClose: () => void
  title: string
  children: ReactNode
  footer?: ReactNode
}) {
  const ref = useRef<HTMLDialogElement>(null)
  const titleId = useId()
  useEffect(() => {
    const dialog = ref.current
    if (!dialog) return
    if (open && !dialog.open) {
      dialog.showModal()
      // The browser focuses the first control; a dialog can name a better one (its main action).
      dialog.querySelector<HTMLElement>("[data-autofocus]")?.focus()
    }
    if (!open && dialog.open) dialog.close()
  }, [open])
  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      onClose={onClose}
      onCancel={(event) => {
        event.preventDefault()
        onClose()
      }}
      className="m-auto w-full max-w-lg rounded-lg border border-slate-200 bg-white p-0 shadow-xl"
    >
      {open ? (
        <div className="flex flex-col">
          <h2 id={titleId} className="border-b border-slate-200 px-5 py-3 text-lg font-semibold">
            {title}
          </h2>
          <div className="px-5 py-4">{children}</div>
          {footer ? <div className="flex justify-end gap-2 border-t border-slate-200 px-5 py-3">{footer}</div> : null}
        </div>
      ) : null}
    </dialog>
  )
}
