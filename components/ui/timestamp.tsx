/**
 * A service time for people: "2026-01-31 12:00:05 UTC". One zone for everyone on the desk,
 * whatever the browser's; to the second (the `<time>` element keeps the exact value).
 * Fractional seconds beyond milliseconds (the service sends up to nanoseconds) are cut
 * before parsing; what is not a time is shown as it is; no time is "—".
 */
export function formatTimestamp(value: string | undefined | null): string {
  if (!value) return "—"
  const date = new Date(value.replace(/(\.\d{3})\d+/, "$1"))
  if (Number.isNaN(date.getTime())) return value
  return `${date.toISOString().slice(0, 19).replace("T", " ")} UTC`
}

/** A service time as a `<time>` element: the formatted UTC time, the exact value in `dateTime` and on hover. */
export function Timestamp({ value, testId }: { value: string | undefined | null; testId?: string }) {
  if (!value) return <span className="text-slate-500">—</span>
  return (
    <time dateTime={value} title={value} data-testid={testId} className="tabular whitespace-nowrap">
      {formatTimestamp(value)}
    </time>
  )
}
