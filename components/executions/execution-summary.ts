import { formatAmount, formatPrice } from "@/lib/format"
import type { QuoteExecution } from "@/lib/schemas/records"

/**
 * The one line that leads an execution's result: "Bought 0.00150000 BTC @ 94,882.21 for
 * 142.33 USD" once SETTLED; "Buying …" before. Every figure through the one formatter, the
 * price with its market's tick decimals when the caller knows them.
 */
export function executionSummary(
  e: Pick<QuoteExecution, "side" | "status" | "base_amount" | "base_asset" | "price" | "quote_amount" | "quote_asset">,
  /** The market's tick_rate (useTickRate), which sets the price's decimals when known. */
  tick?: string,
): string {
  const buy = e.side === "BUY"
  const verb = e.status === "SETTLED" ? (buy ? "Bought" : "Sold") : buy ? "Buying" : "Selling"
  return `${verb} ${formatAmount(e.base_amount, e.base_asset)} ${e.base_asset} @ ${formatPrice(e.price, { tick })} for ${formatAmount(e.quote_amount, e.quote_asset)} ${e.quote_asset}`
}
