/**
 * A `datetime-local` input's value ("2026-01-31T12:00" or with seconds), read as UTC like
 * every time the console shows, as an RFC 3339 UTC time.
 */
export function utcInputToRfc3339(value: string, edge: "begin" | "end"): string | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?$/.exec(value.trim())
  if (!match) return undefined
  const [, y, mo, d, h, mi, s, ms] = match
  const hasSeconds = s !== undefined
  const date = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s ?? "0"), Number((ms ?? "0").padEnd(3, "0"))))
  // Refuses what the calendar does not have (Feb 30) instead of rolling it over.
  if (Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== `${y}-${mo}-${d}`) return undefined
  // "To" is inclusive of the whole minute (or second) the person picked.
  if (edge === "end" && ms === undefined) date.setTime(date.getTime() + (hasSeconds ? 999 : 59_999))
  return date.toISOString()
}

/** An RFC 3339 time as a `datetime-local` value in UTC, to the second. */
export function rfc3339ToUtcInput(value: string | undefined): string {
  if (!value) return ""
  const date = new Date(value.replace(/(\.\d{3})\d+/, "$1"))
  if (Number.isNaN(date.getTime())) return ""
  return date.toISOString().slice(0, 19)
}
