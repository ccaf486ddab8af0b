import type { ReactNode } from "react"
import { MarketPrice } from "@/components/ui/market-price"

/**
 * An approval's limit price as checkers and traders read it: the price and which way the
 * held price may go ("or lower" for a buy, "or higher" for a sell). One component for the
 * approval card and the request's status, each with its own test id; `children` follow it
 * (the card adds the price it was reviewed at).
 */
export function LimitPrice({ price, market, side, testId, children }: { price: string; market: string | null | undefined; side: string | null | undefined; testId: string; children?: ReactNode }) {
  return (
    <dd data-testid={testId}>
      <MarketPrice value={price} market={market} /> {side === "BUY" ? "or lower" : "or higher"}
      {children}
    </dd>
  )
}
