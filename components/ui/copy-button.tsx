"use client"

import { useState } from "react"

/** Copies a value (an id, a ref_id) to the clipboard and says so. */
export function CopyButton({ value, label }: { value: string; label: string }) {
  const [copied, setCopied] = useState(false)
  return (
    <button
      type="button"
      className="rounded px-1.5 py-0.5 text-xs font-medium text-blue-700 hover:bg-blue-50"
      // The name starts with the visible word, so it matches it in both states.
      aria-label={`${copied ? "Copied" : "Copy"} ${label}`}
      onClick={() => {
        void navigator.clipboard
          .writeText(value)
          .then(() => {
            setCopied(true)
            setTimeout(() => setCopied(false), 1500)
          })
          .catch(() => setCopied(false))
      }}
    >
      {copied ? "Copied" : "Copy"}
      <span className="sr-only" aria-live="polite">
        {copied ? `${label} copied` : ""}
      </span>
    </button>
  )
}
