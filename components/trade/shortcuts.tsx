"use client"

import { useEffect, useRef } from "react"

export type DeskKey = { kind: "side"; side: "BUY" | "SELL" } | { kind: "move"; by: 1 | -1 } | { kind: "pick"; index: number } | { kind: "help" }

/**
 * The desk's meaning of a key press, or null: never while typing (inputs, selects, text
 * areas, editable text), with a modifier held (the browser's and the screen reader's own
 * shortcuts), or while a modal dialog is open.
 */
export function deskKeyOf(event: Pick<KeyboardEvent, "key" | "ctrlKey" | "metaKey" | "altKey" | "target" | "defaultPrevented">): DeskKey | null {
  if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return null
  const target = event.target
  if (typeof HTMLElement !== "undefined" && target instanceof HTMLElement) {
    if (target.isContentEditable || target.closest("input, textarea, select, dialog[open]")) return null
  }
  if (typeof document !== "undefined" && document.querySelector("dialog[open]")) return null
  const key = event.key
  if (key === "b" || key === "B") return { kind: "side", side: "BUY" }
  if (key === "s" || key === "S") return { kind: "side", side: "SELL" }
  if (key === "ArrowDown") return { kind: "move", by: 1 }
  if (key === "ArrowUp") return { kind: "move", by: -1 }
  if (key === "?") return { kind: "help" }
  if (/^[1-9]$/.test(key)) return { kind: "pick", index: Number(key) - 1 }
  return null
}

/** Listens for the desk's keys on the whole page while `enabled`. */
export function useDeskShortcuts(onKey: (key: DeskKey) => void, enabled: boolean): void {
  const latest = useRef(onKey)
  useEffect(() => {
    latest.current = onKey
  })
  useEffect(() => {
    if (!enabled) return
    const listener = (event: KeyboardEvent) => {
      const key = deskKeyOf(event)
      if (!key) return
      event.preventDefault()
      latest.current(key)
    }
    window.addEventListener("keydown", listener)
    return () => window.removeEventListener("keydown", listener)
  }, [enabled])
}
