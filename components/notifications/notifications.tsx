"use client"

import Link from "next/link"
import { usePathname } from "next/navigation"
import { useCallback, useEffect, useRef, useState } from "react"
import { isShownLive } from "@/components/notifications/live-records"
import { claim, readState, shouldAnnounce, storageKey, withClaimLock } from "@/components/notifications/seen-store"
import { useNotificationsQuery } from "@/lib/queries/notifications"
import type { NotificationEvent } from "@/lib/schemas/notifications"

/** How long a toast stays; hovering it or moving the keyboard into it stops the count. */
export const TOAST_MS = 10_000
const MAX_TOASTS = 4

const LINK_TEXT: Record<NotificationEvent["kind"], string> = {
  execution: "View execution",
  conversion: "View conversion",
  approval: "View request",
}

function localStorageOrNull(): Storage | null {
  try {
    return window.localStorage
  } catch {
    return null
  }
}

/**
 * Toasts for the signed-in person's placements that settled or were cancelled and their
 * requests that were decided, on whichever console page they are. Rendered after the
 * header, so the keyboard reaches them in a few Tab presses; a toast never takes focus.
 */
export function Notifications({ email }: { email: string }) {
  const key = storageKey(email)
  const pathname = usePathname()
  const [toasts, setToasts] = useState<NotificationEvent[]>([])
  const [announcement, setAnnouncement] = useState("")
  const since = useCallback(() => readState(localStorageOrNull(), key).cursor, [key])
  const query = useNotificationsQuery(key, since, true)
  const page = query.data
  const pathRef = useRef(pathname)
  useEffect(() => {
    pathRef.current = pathname
  }, [pathname])

  useEffect(() => {
    if (!page) return
    let live = true
    void withClaimLock(() => claim(localStorageOrNull(), key, page, Date.now())).then((fresh) => {
      const shown = fresh.filter((event) => shouldAnnounce(event, { pathname: pathRef.current, shownLive: isShownLive }))
      if (!live || shown.length === 0) return
      setToasts((current) => [...current, ...shown].slice(-MAX_TOASTS))
      setAnnouncement(shown.map((event) => `${event.title}. ${event.detail}`).join(" "))
    })
    return () => {
      live = false
    }
  }, [page, key])

  const dismiss = useCallback((id: string) => setToasts((current) => current.filter((toast) => toast.id !== id)), [])
  return <Toasts toasts={toasts} announcement={announcement} onDismiss={dismiss} />
}

export function Toasts({
  toasts,
  announcement,
  onDismiss,
}: {
  toasts: readonly NotificationEvent[]
  announcement: string
  onDismiss: (id: string) => void
}) {
  const region = useRef<HTMLElement>(null)
  // Where the keyboard came from, to go back there once the last toast it was on is gone.
  const cameFrom = useRef<HTMLElement | null>(null)

  const dismissFrom = useCallback(
    (id: string, withKeyboardInside: boolean) => {
      if (withKeyboardInside) {
        const links = [...(region.current?.querySelectorAll<HTMLElement>("[data-toast-link]") ?? [])]
        const next = links.find((link) => link.dataset.toastLink !== id)
        const back = cameFrom.current
        if (next) next.focus()
        else if (back?.isConnected) back.focus()
      }
      onDismiss(id)
    },
    [onDismiss],
  )

  return (
    <section
      ref={region}
      aria-label="Notifications"
      className="pointer-events-none fixed bottom-4 right-4 z-40 flex w-96 max-w-[calc(100vw-2rem)] flex-col gap-2"
      onFocus={(e) => {
        const from = e.relatedTarget
        if (from instanceof HTMLElement && !region.current?.contains(from)) cameFrom.current = from
      }}
    >
      <p role="status" aria-live="polite" className="sr-only">
        {announcement}
      </p>
      {toasts.length > 0 ? (
        <ul className="flex flex-col gap-2">
          {toasts.map((toast) => (
            <Toast key={toast.id} toast={toast} onDismiss={dismissFrom} />
          ))}
        </ul>
      ) : null}
    </section>
  )
}

function Toast({ toast, onDismiss }: { toast: NotificationEvent; onDismiss: (id: string, withKeyboardInside: boolean) => void }) {
  const item = useRef<HTMLLIElement>(null)
  const [hovered, setHovered] = useState(false)
  const [focused, setFocused] = useState(false)
  const remaining = useRef(TOAST_MS)
  const paused = hovered || focused
  const bad = toast.state === "REJECTED" || toast.state === "EXPIRED" || toast.state === "PRICE_MOVED" || toast.state === "FAILED" || toast.state === "CANCELLED"

  useEffect(() => {
    if (paused) return
    const started = Date.now()
    const timer = setTimeout(() => onDismiss(toast.id, false), remaining.current)
    return () => {
      clearTimeout(timer)
      remaining.current = Math.max(0, remaining.current - (Date.now() - started))
    }
  }, [paused, onDismiss, toast.id])

  const inside = () => item.current?.contains(document.activeElement) ?? false
  return (
    <li
      ref={item}
      className={`pointer-events-auto rounded-md border bg-white p-3 text-sm shadow-lg ${bad ? "border-amber-400" : "border-emerald-400"}`}
      data-testid="notification-toast"
      data-event-id={toast.id}
      onMouseEnter={() => setHovered(true)}
      onMouseLeave={() => setHovered(false)}
      onFocus={() => setFocused(true)}
      onBlur={(e) => {
        if (!(e.relatedTarget instanceof Node && item.current?.contains(e.relatedTarget))) setFocused(false)
      }}
      onKeyDown={(e) => {
        if (e.key === "Escape") {
          e.stopPropagation()
          onDismiss(toast.id, true)
        }
      }}
    >
      <div className="flex items-start justify-between gap-3">
        <div className="min-w-0">
          <p className="font-semibold text-slate-900">{toast.title}</p>
          <p className="mt-0.5 break-words text-slate-700">{toast.detail}</p>
          <Link href={toast.href} data-toast-link={toast.id} onClick={() => onDismiss(toast.id, false)} className="mt-1 inline-block font-medium text-blue-700 underline hover:text-blue-900">
            {LINK_TEXT[toast.kind]}
          </Link>
        </div>
        <button
          type="button"
          onClick={() => onDismiss(toast.id, inside())}
          aria-label={`Dismiss: ${toast.title}`}
          className="shrink-0 rounded px-1.5 text-lg leading-none text-slate-600 hover:bg-slate-100 hover:text-slate-900"
        >
          ×
        </button>
      </div>
    </li>
  )
}
