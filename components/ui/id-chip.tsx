import Link from "next/link"
import { CopyButton } from "@/components/ui/copy-button"

/** How much of a long id a chip shows: 8 characters, what search finds a record by. */
export const ID_CHIP_PREFIX = 8

/**
 * An id (a record's, an intent's, a ref_id, a profile's, a quote's) as every page shows it:
 * one line that never wraps, and a copy button. In tables its first 8 characters when it is
 * long (the whole id in its title, for screen readers, and on the clipboard); `full` (a
 * record's own page, a review) shows the whole id, cut with an ellipsis only where the line
 * has no room for it. The one component for ids: no page writes its own.
 */
export function IdChip({
  value,
  label,
  testId,
  full = false,
  href,
  linkLabel,
}: {
  value: string | null | undefined
  label: string
  testId?: string
  full?: boolean
  /** The id's page: the chip's text links there (named `linkLabel`, else "<label> <id>"). */
  href?: string
  linkLabel?: string
}) {
  if (!value) return <span className="text-slate-500">—</span>
  const shown = full || value.length <= ID_CHIP_PREFIX + 4 ? value : `${value.slice(0, ID_CHIP_PREFIX)}…`
  const code = (
    <code
      className="block min-w-0 truncate font-mono text-xs"
      title={value}
      aria-label={href ? undefined : `${label} ${value}`}
      data-testid={testId}
      data-value={value}
    >
      {shown}
    </code>
  )
  return (
    <span className="inline-flex min-w-0 max-w-full items-center gap-0.5 whitespace-nowrap rounded bg-slate-100 pl-1.5 align-middle" data-testid="id-chip">
      {href ? (
        <Link href={href} className="min-w-0 text-blue-700 underline" aria-label={linkLabel ?? `${label} ${value}`}>
          {code}
        </Link>
      ) : (
        code
      )}
      <CopyButton value={value} label={label} />
    </span>
  )
}
