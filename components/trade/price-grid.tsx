"use client"

import dynamic from "next/dynamic"
import { memo, useState } from "react"
import { useExpired } from "@/components/trade/clock"
import { TREND_SIZE } from "@/components/trade/trend-size"
import { preloadExecutePanel } from "@/components/trade/lazy"
import { type MarketRow, changeOf, spreadOf } from "@/components/trade/price-grid-model"
import type { QuoteSideProps } from "@/components/trade/side-tiles"
import { Alert } from "@/components/ui/alert"
import { Card } from "@/components/ui/card"
import { cn } from "@/components/ui/cn"
import { ProblemAlert } from "@/components/ui/problem-alert"
import { Table, TableBody, TableHead, Td, Th, Tr } from "@/components/ui/table"
import { formatPercent, formatPrice } from "@/lib/format"
import { tryDecimal } from "@/lib/money"
import { useMarketPricesQuery, useTickRate } from "@/lib/queries/market-data"
import type { Side } from "@/lib/money"

// The 24 h trend lines come after the grid's first paint: one small history each. Until
// then the cell holds a box of the line's size, so nothing moves when it arrives.
const MarketTrend = dynamic(() => import("@/components/trade/market-trend").then((m) => m.MarketTrend), {
  ssr: false,
  loading: () => <TrendSlot />,
})

const SIDE_WORD = { BUY: "Buy", SELL: "Sell" } as const

/** A price, spread or change column's share of the grid from 640 px (the trend line takes what is left); on a phone the columns take their content's width, so none is pushed out of the box. */
const NUMBER_COLUMN = "sm:w-[19%]"

/** The trend line's box, empty. */
function TrendSlot() {
  return <span className="block" style={{ width: TREND_SIZE.width, height: TREND_SIZE.height }} aria-hidden />
}

type Tick = "up" | "down" | null

/**
 * The direction of the last real tick: a new quote whose price differs from the one before
 * it. A new quote at the same price, or the first one, has none: no marker pretends to move.
 */
function useTick(quote: { id: string; price: string } | undefined): Tick {
  const [seen, setSeen] = useState<{ id: string | undefined; price: string | undefined; tick: Tick }>({ id: quote?.id, price: quote?.price, tick: null })
  if (quote && quote.id !== seen.id) {
    const before = tryDecimal(seen.price)
    const now = tryDecimal(quote.price)
    const tick: Tick = before && now && !now.eq(before) ? (now.gt(before) ? "up" : "down") : null
    setSeen({ id: quote.id, price: quote.price, tick })
  }
  return seen.tick
}

/**
 * One side's held price as a button: the bid sells, the ask buys. An expired or missing
 * quote is greyed out and cannot be chosen; it says why.
 */
const PriceButton = memo(function PriceButton({ market, side, quote, pending, canTrade, onChoose }: QuoteSideProps) {
  const expired = useExpired(quote?.expires_at ?? "")
  const live = quote !== undefined && !expired
  const tone = side === "BUY" ? "text-emerald-800" : "text-red-700"
  const tick = useTick(quote)
  const tickRate = useTickRate(market)
  const price = quote ? formatPrice(quote.price, { tick: tickRate }) : "—"
  const why = quote ? "expired" : pending ? "loading" : "no quote"
  // One line in every state (the reason beside the price, not under it): a row keeps its
  // height when its quote arrives or lapses. On a phone the reason is left to the greyed,
  // struck price and the button's name, so the column stays as narrow as a price.
  const content = (
    <>
      <span className={cn("tabular", live ? tone : "text-slate-600", quote && !live && "line-through")} data-num={quote ? "price" : undefined} data-tick={tickRate}>
        {price}
      </span>
      {live ? null : <span className="ml-1 hidden text-[10px] font-normal uppercase text-slate-600 sm:inline">{why}</span>}
    </>
  )
  if (!canTrade) {
    return (
      <span data-testid={`${side === "BUY" ? "ask" : "bid"}-${market}`} data-live={live}>
        {content}
      </span>
    )
  }
  return (
    <button
      type="button"
      disabled={!live}
      aria-label={live ? `${SIDE_WORD[side]} ${market} at ${price}` : `${SIDE_WORD[side]} ${market}: ${why}`}
      onClick={() => onChoose(market, side)}
      onPointerEnter={preloadExecutePanel}
      onFocus={preloadExecutePanel}
      data-testid={`${side === "BUY" ? "ask" : "bid"}-${market}`}
      data-live={live}
      className={cn(
        "w-full whitespace-nowrap rounded px-1 text-right font-semibold disabled:cursor-not-allowed",
        live && (side === "BUY" ? "hover:bg-emerald-50" : "hover:bg-red-50"),
      )}
    >
      {/* The last tick's direction, in a slot of fixed width so the price never moves. */}
      <span aria-hidden data-tick={tick ?? "none"} className={cn("mr-0.5 hidden w-2.5 text-[10px] sm:inline-block", tick === "up" ? "text-emerald-700" : "text-red-700")}>
        {tick === "up" ? "▲" : tick === "down" ? "▼" : ""}
      </span>
      {content}
    </button>
  )
})

/** The 24 h change's sign: the trend line takes its colour from it, so the two never disagree. */
function directionOf(change: string | null): "up" | "down" | "flat" | undefined {
  if (change === null) return undefined
  return change.startsWith("-") ? "down" : change === "0.00" ? "flat" : "up"
}

function Change({ row }: { row: MarketRow }) {
  const change = changeOf(row)
  if (change === null) return <span className="text-slate-600">n/a</span>
  const up = change.startsWith("-") ? false : change !== "0.00"
  const down = change.startsWith("-")
  return (
    <span className={cn("tabular whitespace-nowrap", up ? "text-emerald-800" : down ? "text-red-700" : "text-slate-700")}>
      <span aria-hidden className="hidden sm:inline">
        {up ? "▲ " : down ? "▼ " : ""}
      </span>
      {formatPercent(change, { signed: true })} %<span className="sr-only">{up ? " up" : down ? " down" : ""}</span>
    </span>
  )
}

/**
 * Every market's held bid and ask, the spread, the 24 h change and a trend line, in one
 * dense grid. A market's name selects it for the ticket; its bid sells, its ask buys.
 */
export function PriceGrid({
  rows,
  selected,
  canTrade,
  pending,
  stale,
  notLive = false,
  error,
  onSelect,
  onChoose,
}: {
  rows: readonly MarketRow[]
  selected: string
  canTrade: boolean
  pending: boolean
  /** The quotes are not updating (the service's last answer failed, or the console's did). */
  stale: { since: string } | null
  /** The tab's stream dropped: prices are polled every second until it is back. */
  notLive?: boolean
  error: unknown
  onSelect: (market: string) => void
  onChoose: (market: string, side: Side) => void
}) {
  // The service's tick of each market sets its prices' decimals (lib/format).
  const ticks = useMarketPricesQuery().data?.tick_rates
  return (
    <Card title="Markets" className="min-w-0">
      {stale ? (
        <Alert tone="warning" className="mb-3" title="Quotes are not updating">
          <span data-testid="quotes-stale">
            The service has not sent new quotes since {stale.since}. A quote past its hold is greyed out and cannot be executed until new ones arrive.
          </span>
        </Alert>
      ) : null}
      {notLive && !stale ? (
        <Alert tone="warning" className="mb-3" title="Prices are not live">
          <span data-testid="quotes-not-live">The console&apos;s live feed dropped: prices are asked for every second until it is back.</span>
        </Alert>
      ) : null}
      {error && rows.every((r) => !r.buy && !r.sell) ? <ProblemAlert error={error} className="mb-3" /> : null}
      <Table caption="Held quotes of every market: the bid sells, the ask buys" density="compact" testId="price-grid" className="-mx-2 w-[calc(100%+1rem)]">
        <TableHead>
          <Th className="sm:w-[15%]">Market</Th>
          {/* Columns have set shares of the width: a price, spread or change that gets a digit
              longer (or arrives) does not move the columns beside it. */}
          <Th align="right" className={NUMBER_COLUMN}>
            Bid <span className="hidden font-normal normal-case sm:inline">(sell)</span>
          </Th>
          <Th align="right" className={NUMBER_COLUMN}>
            Ask <span className="hidden font-normal normal-case sm:inline">(buy)</span>
          </Th>
          <Th align="right" className={cn("hidden sm:table-cell", NUMBER_COLUMN)}>
            Spread
          </Th>
          <Th align="right" className="hidden sm:table-cell sm:w-[14%]">
            24 h
          </Th>
          <Th className="hidden md:table-cell">
            <span className="sr-only">24 h trend</span>
            <span aria-hidden>Trend</span>
          </Th>
        </TableHead>
        <TableBody>
          {rows.map((row, index) => {
            const isSelected = row.market === selected
            const spread = spreadOf(row)
            return (
              <Tr key={row.market} data-testid={`market-${row.market}`} data-selected={String(isSelected)} className={cn("h-9 align-middle text-xs sm:text-sm", isSelected && "bg-blue-50")}>
                <th scope="row" className="text-left font-medium">
                  <button
                    type="button"
                    aria-pressed={isSelected}
                    onClick={() => onSelect(row.market)}
                    className={cn("rounded px-1 text-left hover:bg-slate-100", isSelected && "font-semibold text-blue-800")}
                  >
                    {row.market}
                    {index < 9 ? (
                      <kbd aria-hidden className="key-hint ml-1 hidden text-[10px] font-normal text-slate-600 sm:inline">
                        {index + 1}
                      </kbd>
                    ) : null}
                  </button>
                  {/* Below 640 px the 24 h change sits under the market: three columns fit a phone. */}
                  <span className="block px-1 text-[10px] font-normal sm:hidden" data-testid="change-narrow">
                    <Change row={row} />
                  </span>
                </th>
                <Td align="right">
                  <PriceButton market={row.market} side="SELL" quote={row.sell} pending={pending} canTrade={canTrade} onChoose={onChoose} />
                </Td>
                <Td align="right">
                  <PriceButton market={row.market} side="BUY" quote={row.buy} pending={pending} canTrade={canTrade} onChoose={onChoose} />
                </Td>
                <Td align="right" className="hidden tabular text-slate-700 sm:table-cell">
                  {spread ? (
                    <>
                      {formatPrice(spread.amount, { like: row.buy?.price, tick: ticks?.[row.market], round: true })} <span className="text-xs text-slate-600">{spread.bps} bp</span>
                    </>
                  ) : (
                    "n/a"
                  )}
                </Td>
                <Td align="right" className="hidden sm:table-cell">
                  <Change row={row} />
                </Td>
                <Td className="hidden md:table-cell">
                  <MarketTrend market={row.market} direction={directionOf(changeOf(row))} />
                </Td>
              </Tr>
            )
          })}
        </TableBody>
      </Table>
      {pending ? <p className="mt-2 text-sm text-slate-600">Loading quotes…</p> : null}
    </Card>
  )
}
