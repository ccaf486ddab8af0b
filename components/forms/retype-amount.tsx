"use client"

import { useState } from "react"
import { retypedMatches } from "@/lib/pre-trade"

/**
 * The typed-again amount of a large order under review (policy `retype_amount_over`, the
 * verdict's `retype`), for the trade ticket's review and the conversion's. What was typed
 * belongs to one review (`key`: its ref_id and quote): a new review starts empty.
 * `pending` is true while the amount is needed and does not match: Confirm stays off.
 */
export function useRetype(key: string, needed: boolean, amount: string | null): { value: string; set: (value: string) => void; pending: boolean } {
  const [typed, setTyped] = useState({ key: "", value: "" })
  const value = typed.key === key ? typed.value : ""
  return {
    value,
    set: (next: string) => setTyped({ key, value: next }),
    pending: needed && amount !== null && !retypedMatches(value, amount),
  }
}

/** A large order's amount, typed again before Confirm: a unit slip does not survive it. Enter confirms once it matches. */
export function RetypeAmount({ amount, asset, value, onChange, onEnter }: { amount: string; asset: string; value: string; onChange: (value: string) => void; onEnter: () => void }) {
  const matches = retypedMatches(value, amount)
  return (
    <div className="rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-950">
      <label className="block font-medium" htmlFor="retype-amount">
        A large order: type the amount again ({asset})
      </label>
      <input
        id="retype-amount"
        className="mt-1 w-full rounded-md border border-slate-300 bg-white px-2 py-1 text-slate-900"
        inputMode="decimal"
        autoComplete="off"
        spellCheck={false}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        onKeyDown={(e) => {
          // Enter confirms once it matches, and never submits a form around the dialog (the conversion's).
          if (e.key !== "Enter") return
          e.preventDefault()
          if (matches) onEnter()
        }}
        aria-describedby="retype-hint"
        data-testid="retype-amount"
        data-autofocus
      />
      <p id="retype-hint" className="mt-1 text-xs" data-testid="retype-hint">
        {value.trim() === "" ? "Confirm opens once it matches." : matches ? "Matches." : "Does not match the amount under review."}
      </p>
    </div>
  )
}
