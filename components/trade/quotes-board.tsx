"use client"

import { memo, useEffect } from "react"
import { Countdown } from "@/components/trade/countdown"
import { preloadExecutePanel } from "@/components/trade/lazy"
import { Alert } from "@/components/ui/alert"
import { Button } from "@/components/ui/button"
import { Card } from "@/components/ui/card"
import { ProblemAlert } from "@/components/ui/problem-alert"
import { formatAmount } from "@/lib/money"
import { useQuotesQuery } from "@/lib/queries/quotes"
import type { Quote } from "@/lib/schemas/records"

const SIDE_WORD = { BUY: "Buy", SELL: "Sell" } as const

const QuoteTile = memo(function QuoteTile({
  quote,
  canTrade,
  onChoose,
}: {
  quote: Quote
  canTrade: boolean
  onChoose: (quote: Quote) => void
}) {
  const word = SIDE_WORD[quote.side]
  return (
    <section
      aria-labelledby={`quote-${quote.side}-title`}
      className="flex flex-col gap-2 rounded-md border border-slate-200 p-4"
      data-testid={`quote-${quote.side}`}
      data-quote-id={quote.id}
    >
      <h3 id={`quote-${quote.side}-title`} className="text-sm font-semibold uppercase tracking-wide text-slate-700">
        {word} {quote.base_asset}
      </h3>
      <p className="text-2xl font-semibold tabular text-slate-900">
        <span data-testid="quote-price">{formatAmount(quote.price)}</span>{" "}
        <span className="text-sm font-normal text-slate-600">
          {quote.quote_asset} per {quote.base_asset}
        </span>
      </p>
      <p className="text-sm">
        Held price, expires in <Countdown expiresAt={quote.expires_at} />
      </p>
      {canTrade ? (
        <Button
          variant={quote.side === "BUY" ? "primary" : "secondary"}
          onClick={() => onChoose(quote)}
          onPointerEnter={preloadExecutePanel}
          onFocus={preloadExecutePanel}
          data-testid={`choose-${quote.side}`}
        >
          {word} {quote.base_asset}
        </Button>
      ) : null}
    </section>
  )
})

/**
 * The chosen market's held BUY and SELL quotes, refreshed every second from the
 * console's quote cache. Only this component re-renders on each refresh.
 */
export function QuotesBoard({
  market,
  canTrade,
  onChoose,
  onMarketsSeen,
}: {
  market: string
  canTrade: boolean
  onChoose: (quote: Quote) => void
  onMarketsSeen?: (markets: readonly string[]) => void
}) {
  const quotes = useQuotesQuery([market])
  const items = quotes.data?.items
  const buy = items?.find((q) => q.market === market && q.side === "BUY")
  const sell = items?.find((q) => q.market === market && q.side === "SELL")
  const seen = quotes.data ? [...new Set([...quotes.data.markets, ...(items ?? []).map((q) => q.market)])].sort().join(",") : ""
  useEffect(() => {
    if (seen) onMarketsSeen?.(seen.split(","))
  }, [seen, onMarketsSeen])
  return (
    <Card title={`Held quotes · ${market}`}>
      {quotes.data?.stale ? (
        <Alert tone="warning" className="mb-3" title="Quotes may be out of date">
          The service did not answer the last refresh; these are the last quotes still within their hold.
        </Alert>
      ) : null}
      {quotes.error && !quotes.data ? <ProblemAlert error={quotes.error} className="mb-3" /> : null}
      {quotes.isPending ? <p className="text-sm text-slate-600">Loading quotes…</p> : null}
      {items && !buy && !sell ? <p className="text-sm text-slate-600">The service has no quotes for {market} right now.</p> : null}
      <div className="grid gap-3 sm:grid-cols-2">
        {buy ? <QuoteTile quote={buy} canTrade={canTrade} onChoose={onChoose} /> : null}
        {sell ? <QuoteTile quote={sell} canTrade={canTrade} onChoose={onChoose} /> : null}
      </div>
      {!canTrade ? (
        <p className="mt-3 text-sm text-slate-600" data-testid="read-only-note">
          You can watch the quotes; executing them needs the trader role.
        </p>
      ) : null}
    </Card>
  )
}
