import { formatAmount } from "@/lib/money"
import type { QuoteExecution } from "@/lib/schemas/records"

/** A crypto amount without its padding zeros ("0.00150000" → "0.0015"), grouped for reading. */
function plainAmount(value: string): string {
  return formatAmount(value.includes(".") ? value.replace(/\.?0+$/, "") : value)
}

/**
 * The one line that leads an execution's result: "Bought 0.0015 BTC @ 94,882.21 for
 * 142.33 USD" once SETTLED; "Buying …" before.
 */
export function executionSummary(
  e: Pick<QuoteExecution, "side" | "status" | "base_amount" | "base_asset" | "price" | "quote_amount" | "quote_asset">,
): string {
  const buy = e.side === "BUY"
  const verb = e.status === "SETTLED" ? (buy ? "Bought" : "Sold") : buy ? "Buying" : "Selling"
  return `${verb} ${plainAmount(e.base_amount)} ${e.base_asset} @ ${formatAmount(e.price)} for ${formatAmount(e.quote_amount)} ${e.quote_asset}`
}
