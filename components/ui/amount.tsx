import { cn } from "@/components/ui/cn"
import { formatAmount } from "@/lib/money"

/** An amount exactly as the decimal string says, grouped for reading, digits aligned. */
export function Amount({ value, asset, minPlaces, className }: { value: string | undefined; asset?: string | undefined; minPlaces?: number; className?: string }) {
  if (value === undefined) return <span className="text-slate-500">—</span>
  return (
    <span className={cn("tabular whitespace-nowrap", className)}>
      {formatAmount(value, minPlaces === undefined ? {} : { minPlaces })}
      {asset ? <span className="ml-1 text-slate-600">{asset}</span> : null}
    </span>
  )
}
