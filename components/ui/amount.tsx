import { cn } from "@/components/ui/cn"
import { formatAmount } from "@/lib/money"

/** An amount exactly as the decimal string says, grouped for reading, digits aligned; a real space before the asset, so copied text and screen readers get "125.50 USD". */
export function Amount({ value, asset, minPlaces, className }: { value: string | undefined; asset?: string | undefined; minPlaces?: number; className?: string }) {
  if (value === undefined) return <span className="text-slate-500">—</span>
  return (
    <span className={cn("tabular whitespace-nowrap", className)}>
      {formatAmount(value, minPlaces === undefined ? {} : { minPlaces })}
      {asset ? <>{" "}<span className="text-slate-600">{asset}</span></> : null}
    </span>
  )
}
