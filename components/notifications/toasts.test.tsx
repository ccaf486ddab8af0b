// @vitest-environment jsdom
import { act, createElement, useEffect, useState } from "react"
import { type Root, createRoot } from "react-dom/client"
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest"
import { TOAST_MS, Toasts } from "@/components/notifications/notifications"
import type { NotificationEvent } from "@/lib/schemas/notifications"

vi.mock("next/link", () => ({
  default: ({ href, children, ...rest }: { href: string; children: unknown }) => createElement("a", { href, ...rest }, children as never),
}))
vi.mock("next/navigation", () => ({ usePathname: () => "/executions" }))

;(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true

function event(id: string): NotificationEvent {
  return {
    id: `execution:${id}:SETTLED`,
    kind: "execution",
    state: "SETTLED",
    at: "2026-03-01T12:00:00.000Z",
    record_id: id,
    title: `Execution ${id} settled`,
    detail: `Execution ${id} is SETTLED.`,
    href: `/executions/p1/${id}`,
  }
}

let root: Root
let container: HTMLElement
const controls = { show: (_events: NotificationEvent[]): void => undefined }
const show = (events: NotificationEvent[]) => controls.show(events)

function Harness() {
  const [toasts, setToasts] = useState<NotificationEvent[]>([])
  useEffect(() => {
    controls.show = (events) => setToasts((current) => [...current, ...events])
  }, [])
  return createElement(Toasts, {
    toasts,
    announcement: toasts.map((t) => t.title).join(" "),
    onDismiss: (id: string) => setToasts((current) => current.filter((t) => t.id !== id)),
  })
}

const toastTitles = () => [...container.querySelectorAll("[data-testid=notification-toast] p.font-semibold")].map((p) => p.textContent)

beforeEach(() => {
  vi.useFakeTimers()
  container = document.createElement("div")
  document.body.append(container)
  act(() => {
    root = createRoot(container)
    root.render(createElement("div", null, createElement("button", { id: "elsewhere" }, "Elsewhere"), createElement(Harness)))
  })
})
afterEach(() => {
  act(() => root.unmount())
  container.remove()
  vi.useRealTimers()
})

describe("notification toasts", () => {
  it("appear in a polite status region without taking the keyboard's focus", () => {
    const elsewhere = document.getElementById("elsewhere")!
    elsewhere.focus()
    act(() => show([event("a")]))
    expect(toastTitles()).toEqual(["Execution a settled"])
    expect(document.activeElement).toBe(elsewhere)
    const status = container.querySelector("[role=status]")!
    expect(status.getAttribute("aria-live")).toBe("polite")
    expect(status.textContent).toBe("Execution a settled")
    expect(container.querySelector("section[aria-label=Notifications] a")?.getAttribute("href")).toBe("/executions/p1/a")
  })

  it("go by themselves, but not while the pointer is over one or the keyboard is in it", () => {
    act(() => show([event("a"), event("b")]))
    const [first, second] = [...container.querySelectorAll<HTMLElement>("[data-testid=notification-toast]")]
    act(() => {
      first!.dispatchEvent(new MouseEvent("mouseover", { bubbles: true }))
    })
    act(() => {
      second!.querySelector("a")!.focus()
    })
    act(() => {
      vi.advanceTimersByTime(TOAST_MS * 3)
    })
    expect(toastTitles()).toEqual(["Execution a settled", "Execution b settled"])
    act(() => {
      first!.dispatchEvent(new MouseEvent("mouseout", { bubbles: true, relatedTarget: document.body }))
    })
    act(() => {
      vi.advanceTimersByTime(TOAST_MS)
    })
    expect(toastTitles()).toEqual(["Execution b settled"])
  })

  it("close with their button or Escape; the keyboard moves to the next toast, then back to where it came from", () => {
    act(() => show([event("a"), event("b")]))
    const elsewhere = document.getElementById("elsewhere")!
    elsewhere.focus()
    const firstLink = container.querySelector<HTMLElement>("[data-toast-link]")!
    act(() => {
      firstLink.focus()
    })
    act(() => {
      firstLink.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }))
    })
    expect(toastTitles()).toEqual(["Execution b settled"])
    expect(document.activeElement?.getAttribute("data-toast-link")).toBe("execution:b:SETTLED")
    const dismiss = container.querySelector<HTMLButtonElement>("button[aria-label='Dismiss: Execution b settled']")!
    act(() => dismiss.focus())
    act(() => dismiss.click())
    expect(toastTitles()).toEqual([])
    expect(document.activeElement).toBe(elsewhere)
  })
})
