"use client"

import { Price } from "@/components/ui/amount"
import { useTickRate } from "@/lib/queries/market-data"

/**
 * A price of a known market, with the decimals of the service's tick_rate for it (as the
 * desk shows it; GET /api/markets/prices carries the tick rates), through lib/format. Until
 * the tick rates answer, or for a market they do not list, the size rule decides.
 */
export function MarketPrice({ market, ...price }: { market: string | null | undefined; value: string | undefined | null; unit?: string; className?: string; testId?: string }) {
  const tick = useTickRate(market)
  return <Price {...price} tick={tick} />
}
