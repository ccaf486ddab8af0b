import { CopyButton } from "@/components/ui/copy-button"

/** An id in monospace with its copy button; a dash when there is none (or it is empty). */
export function CopyableId({ value, label, testId }: { value: string | undefined; label: string; testId?: string }) {
  if (!value) return <span className="text-slate-500">—</span>
  return (
    <span className="inline-flex max-w-full flex-wrap items-center gap-1">
      <code className="break-all font-mono text-xs" data-testid={testId}>
        {value}
      </code>
      <CopyButton value={value} label={label} />
    </span>
  )
}
