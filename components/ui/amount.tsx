import { cn } from "@/components/ui/cn"
import { formatAmount, formatPrice } from "@/lib/format"

/**
 * An amount of `asset` through the one formatter (lib/format): grouped, the asset's fixed
 * decimals, digits aligned; a real space before the asset, so copied text and screen
 * readers get "125.50 USD". `unit` replaces the asset's name after the figure.
 */
export function Amount({ value, asset, unit, className }: { value: string | undefined | null; asset: string | null | undefined; unit?: string; className?: string }) {
  if (value === undefined || value === null) return <span className="text-slate-500">—</span>
  const label = unit ?? asset
  return (
    <span className={cn("tabular whitespace-nowrap", className)} data-num="amount" data-asset={asset ?? undefined}>
      {formatAmount(value, asset)}
      {label ? <>{" "}<span className="text-slate-600">{label}</span></> : null}
    </span>
  )
}

/** A price with its market's tick decimals (lib/format); `unit` after it, e.g. "USD per BTC". */
export function Price({ value, unit, className, testId }: { value: string | undefined | null; unit?: string; className?: string; testId?: string }) {
  if (value === undefined || value === null) return <span className="text-slate-500">—</span>
  return (
    <span className={cn("tabular whitespace-nowrap", className)} data-num="price" data-testid={testId}>
      {formatPrice(value)}
      {unit ? <>{" "}<span className="text-slate-600">{unit}</span></> : null}
    </span>
  )
}
