"use client"

import { useEffect, useState } from "react"
import { useHydrated } from "@/components/ui/use-hydrated"

type CopyState = "idle" | "copied" | "failed"

const WORD: Record<CopyState, string> = { idle: "Copy", copied: "Copied", failed: "Copy failed" }

/**
 * Copies a value (an id, a ref_id) to the clipboard and says so, or says that the browser
 * refused. Disabled until hydrated, so an early click is never silently lost. A function
 * value is read at the click (a page's own address, which only the browser knows).
 */
export function CopyButton({ value, label }: { value: string | (() => string); label: string }) {
  const hydrated = useHydrated()
  const [state, setState] = useState<CopyState>("idle")
  useEffect(() => {
    if (state === "idle") return
    const timer = setTimeout(() => setState("idle"), 2000)
    return () => clearTimeout(timer)
  }, [state])
  return (
    <button
      type="button"
      disabled={!hydrated}
      className="rounded px-1.5 py-0.5 text-xs font-medium text-blue-700 hover:bg-blue-50 disabled:text-slate-400"
      // The name starts with the visible word, so it matches it in every state.
      aria-label={`${WORD[state]} ${label}`}
      onClick={() => {
        // Through a promise: without a secure context there is no navigator.clipboard at all.
        void Promise.resolve()
          .then(() => navigator.clipboard.writeText(typeof value === "function" ? value() : value))
          .then(
          () => setState("copied"),
          () => setState("failed"),
        )
      }}
    >
      {WORD[state]}
      <span className="sr-only" aria-live="polite">
        {state === "copied" ? `${label} copied` : state === "failed" ? `${label} not copied: the browser refused` : ""}
      </span>
    </button>
  )
}
