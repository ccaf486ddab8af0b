import type { ClipboardEvent } from "react"
import { normaliseAmountInput } from "@/lib/format"

/**
 * An amount field's paste: the console's own figures ("2,487,371.39", copied from a
 * balance or a record) go in as the plain decimal the field's rule reads ("2487371.39").
 * Anything else is pasted as it is, for the field's own rule to judge.
 */
export function pasteAmount(event: ClipboardEvent<HTMLInputElement>): void {
  const text = event.clipboardData.getData("text")
  const plain = normaliseAmountInput(text)
  if (plain === text) return
  event.preventDefault()
  const input = event.currentTarget
  const end = input.value.length
  input.setRangeText(plain, input.selectionStart ?? end, input.selectionEnd ?? end, "end")
  // setRangeText bypasses React's value tracking, so this input event reaches onChange (and the form).
  input.dispatchEvent(new Event("input", { bubbles: true }))
}
