import { cn } from "@/components/ui/cn"
import { formatAmount, formatPrice } from "@/lib/format"

/**
 * An amount of `asset` through the one formatter (lib/format): grouped, the asset's fixed
 * decimals, digits aligned; a real space before the asset, so copied text and screen
 * readers get "125.50 USD". `unit` replaces the asset's name after the figure; `places`
 * sets the decimals of an amount with its own precision (a conversion's: CONVERSION_DECIMALS).
 */
export function Amount({ value, asset, unit, places, className }: { value: string | undefined | null; asset: string | null | undefined; unit?: string; places?: number; className?: string }) {
  if (value === undefined || value === null) return <span className="text-slate-500">—</span>
  const label = unit ?? asset
  return (
    <span className={cn("tabular whitespace-nowrap", className)} data-num="amount" data-asset={asset ?? undefined} data-places={places}>
      {formatAmount(value, asset, places)}
      {label ? <>{" "}<span className="text-slate-600">{label}</span></> : null}
    </span>
  )
}

/** A price with its market's tick decimals (lib/format: the service's `tick` when known); `unit` after it, e.g. "USD per BTC". */
export function Price({ value, unit, round, tick, className, testId }: { value: string | undefined | null; unit?: string; round?: boolean; tick?: string | undefined; className?: string; testId?: string }) {
  if (value === undefined || value === null) return <span className="text-slate-500">—</span>
  return (
    <span className={cn("tabular whitespace-nowrap", className)} data-num="price" data-tick={tick} data-testid={testId}>
      {formatPrice(value, { round: round ?? false, tick })}
      {unit ? <>{" "}<span className="text-slate-600">{unit}</span></> : null}
    </span>
  )
}
