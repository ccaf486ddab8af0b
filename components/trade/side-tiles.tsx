"use client"

import { memo } from "react"
import { useExpired } from "@/components/trade/clock"
import { preloadExecutePanel } from "@/components/trade/lazy"
import { Button } from "@/components/ui/button"
import { cn } from "@/components/ui/cn"
import { formatPrice } from "@/lib/format"
import { useTickRate } from "@/lib/queries/market-data"
import type { Side } from "@/lib/money"
import { parseMarket } from "@/lib/schemas/assets"
import type { Quote } from "@/lib/schemas/records"

const SIDE_WORD = { BUY: "Buy", SELL: "Sell" } as const

/**
 * The selected market's live price for one side, and its action. The board's quotes are
 * replaced every second, so no countdown here: the held quote's countdown is on the ticket
 * once chosen. An expired or missing quote greys the tile and disables its action.
 */
/** What a control for one side of a market's held quote needs: a grid price or a ticket tile. */
export interface QuoteSideProps {
  market: string
  side: Side
  quote: Quote | undefined
  /** The first quotes have not arrived yet: no verdict on this side. */
  pending: boolean
  canTrade: boolean
  onChoose: (market: string, side: Side) => void
}

const SideTile = memo(function SideTile({ market, side, quote, pending, canTrade, active, onChoose }: QuoteSideProps & { active: boolean }) {
  const expired = useExpired(quote?.expires_at ?? "")
  const live = quote !== undefined && !expired
  const assets = parseMarket(market)
  const base = quote?.base_asset ?? assets?.base ?? market
  const quoteAsset = quote?.quote_asset ?? assets?.quote ?? ""
  const word = SIDE_WORD[side]
  const buying = side === "BUY"
  const tickRate = useTickRate(market)
  return (
    <section
      aria-labelledby={`quote-${side}-title`}
      className={cn(
        "flex min-w-0 flex-col gap-1 rounded-md border p-3",
        !live ? "border-slate-200 bg-slate-50 text-slate-600" : buying ? "border-emerald-300" : "border-red-300",
        active && live && (buying ? "ring-2 ring-emerald-600" : "ring-2 ring-red-600"),
      )}
      data-testid={`quote-${side}`}
      data-quote-id={quote?.id}
      // When the service made it: the bench (e2e/perf/push.ts) times a quote from here to the page.
      data-quote-created-at={quote?.created_at}
      data-live={live}
    >
      <h3 id={`quote-${side}-title`} className={cn("text-xs font-semibold uppercase tracking-wide", live ? (buying ? "text-emerald-800" : "text-red-700") : "")}>
        <span aria-hidden>{buying ? "▲ " : "▼ "}</span>
        {word} {base} <span className="font-normal normal-case text-slate-600">{buying ? "at the ask" : "at the bid"}</span>
      </h3>
      {/* The unit has a line of its own: beside the price it wrapped under a long price only, so the tile grew when the first quote arrived. */}
      <p className={cn("text-xl font-semibold tabular", live ? "text-slate-900" : "text-slate-600", quote && !live && "line-through")}>
        <span data-testid="quote-price" data-num={quote ? "price" : undefined} data-tick={tickRate}>{quote ? formatPrice(quote.price, { tick: tickRate }) : "—"}</span>{" "}
        <span className="block text-xs font-normal text-slate-600">
          {quoteAsset} per {base}
        </span>
      </p>
      {/* Two lines kept for the reason in every state, so the tile keeps its height when a quote arrives or lapses. */}
      <p className="min-h-8 text-xs font-medium text-slate-700" data-testid={live || pending ? undefined : "quote-unavailable"}>
        {live ? null : pending ? "Loading quotes…" : quote ? "Expired: no newer quote from the service yet." : `No ${side} quote for ${market} right now.`}
      </p>
      {canTrade ? (
        <Button
          size="sm"
          disabled={!live}
          aria-pressed={active}
          aria-keyshortcuts={buying ? "B" : "S"}
          variant={buying ? "buy" : "sell"}
          onClick={() => onChoose(market, side)}
          onPointerEnter={preloadExecutePanel}
          onFocus={preloadExecutePanel}
          data-testid={`choose-${side}`}
        >
          {word} {base}
          <kbd aria-hidden className="key-hint rounded bg-white/20 px-1 text-[10px]">
            {buying ? "B" : "S"}
          </kbd>
        </Button>
      ) : null}
    </section>
  )
})

/** The ticket's head: the selected market's bid and ask, each with its action. */
export function SideTiles(props: {
  market: string
  buy: Quote | undefined
  sell: Quote | undefined
  pending: boolean
  canTrade: boolean
  activeSide: Side | null
  onChoose: (market: string, side: Side) => void
}) {
  const { market, buy, sell, pending, canTrade, activeSide, onChoose } = props
  return (
    <div className="grid grid-cols-2 gap-2">
      <SideTile market={market} side="BUY" quote={buy} pending={pending} canTrade={canTrade} active={activeSide === "BUY"} onChoose={onChoose} />
      <SideTile market={market} side="SELL" quote={sell} pending={pending} canTrade={canTrade} active={activeSide === "SELL"} onChoose={onChoose} />
    </div>
  )
}
