"use client"

import dynamic from "next/dynamic"
import { memo, useCallback, useEffect, useMemo, useRef, useState } from "react"
import { ProfilePicker } from "@/components/profile/profile-picker"
import { remainingSeconds } from "@/components/trade/clock"
import { loadExecutePanel, loadExecutionRecordCard, loadPendingSubmission, preloadExecutePanel } from "@/components/trade/lazy"
import { PENDING_KEY } from "@/components/trade/pending-key"
import type { PendingSubmission } from "@/components/trade/pending-submission"
import { PriceGrid } from "@/components/trade/price-grid"
import { marketRows } from "@/components/trade/price-grid-model"
import { type DeskKey, useDeskShortcuts } from "@/components/trade/shortcuts"
import { SideTiles } from "@/components/trade/side-tiles"
import { Button } from "@/components/ui/button"
import { Card } from "@/components/ui/card"
import { ProblemAlert } from "@/components/ui/problem-alert"
import { useHydrated } from "@/components/ui/use-hydrated"
import { formatTimestamp } from "@/components/ui/timestamp"
import type { Side } from "@/lib/money"
import { isApprovalRequest } from "@/lib/queries/approvals"
import { useMarketPricesQuery } from "@/lib/queries/market-data"
import { useSelectedProfile } from "@/lib/queries/profiles"
import { useAllQuotesQuery } from "@/lib/queries/quotes"
import { useStreamState } from "@/lib/queries/stream"
import { newRefId } from "@/lib/queries/ref-id"
import type { ApprovalRequest } from "@/lib/schemas/approvals"
import type { Quote, QuoteExecution } from "@/lib/schemas/records"

const ExecutePanel = memo(
  dynamic(() => loadExecutePanel().then((m) => m.ExecutePanel), {
    ssr: false,
    loading: () => (
      <Card>
        <p className="text-sm text-slate-600">Opening the order ticket…</p>
      </Card>
    ),
  }),
)

const ExecutionRecordCard = dynamic(() => loadExecutionRecordCard().then((m) => m.ExecutionRecordCard), {
  ssr: false,
  loading: () => (
    <Card>
      <p className="text-sm text-slate-600">Loading the execution…</p>
    </Card>
  ),
})

// The price chart comes after the grid's first paint.
const MarketChart = memo(dynamic(() => import("@/components/trade/market-chart").then((m) => m.MarketChart), { ssr: false }))
// The balances and the recent trades wait for their own answers anyway: their code loads beside
// those requests instead of in the desk's first load (each card keeps its place meanwhile).
const Balances = memo(
  dynamic(() => import("@/components/trade/balances").then((m) => m.Balances), {
    ssr: false,
    loading: () => <LoadingCard title="Balances" />,
  }),
)
const RecentTrades = memo(
  dynamic(() => import("@/components/trade/recent-trades").then((m) => m.RecentTrades), {
    ssr: false,
    loading: () => <LoadingCard title="Recent trades" />,
  }),
)
// The `?` overlay loads the first time it is asked for.
const ShortcutsHelp = dynamic(() => import("@/components/trade/shortcuts-help").then((m) => m.ShortcutsHelp), { ssr: false })

function LoadingCard({ title }: { title: string }) {
  return (
    <Card title={title} className="min-w-0">
      <p className="text-sm text-slate-600">Loading…</p>
    </Card>
  )
}

// Only an order that needs a second person shows this, so it loads when one does.
const RequestStatus = dynamic(() => import("@/components/approvals/request-status").then((m) => m.RequestStatus))

interface Ticket {
  key: string
  quote: Quote
  resume: PendingSubmission | null
}

interface Result {
  record: QuoteExecution | ApprovalRequest
  problem: unknown
  profileName: string
}

const NO_QUOTES: Quote[] = []

/**
 * The trade desk: every market's bid and ask in one grid beside the order ticket (the
 * selected market's two sides, then the execute form once a side is chosen), the placed
 * execution's live result, the profile's balances and recent trades. Keys: B and S choose
 * a side, arrows and digits a market, ? lists them.
 */
export function TradeDesk({ canTrade }: { canTrade: boolean }) {
  const { profileId, profiles, setProfileId, error: profilesError } = useSelectedProfile()
  const [market, setMarket] = useState<string>("BTCUSD")
  const [ticket, setTicket] = useState<Ticket | null>(null)
  const [result, setResult] = useState<Result | null>(null)
  const [help, setHelp] = useState(false)
  const hydrated = useHydrated()
  const resultRef = useRef<HTMLDivElement>(null)
  const quotes = useAllQuotesQuery()
  const prices = useMarketPricesQuery()

  // A submission left at the confirm step (or sent) before a reload is resumed: same
  // profile, same quote, same body, same ref_id. One that was sent is asked about, not sent again.
  useEffect(() => {
    if (!canTrade) return
    // The ticket's code is wanted at the first B or S: fetch it once the page is up.
    preloadExecutePanel()
    let stored: string | null = null
    try {
      stored = window.sessionStorage.getItem(PENDING_KEY)
    } catch {
      return
    }
    if (stored === null) return
    let cancelled = false
    void loadPendingSubmission().then(({ pendingTrades }) => {
      if (cancelled) return
      const pending = pendingTrades.load(window.sessionStorage, Date.now())
      if (!pending) return
      setProfileId(pending.profileId)
      setMarket(pending.quote.market)
      setTicket({ key: pending.refId, quote: pending.quote, resume: pending })
    })
    return () => {
      cancelled = true
    }
  }, [canTrade, setProfileId])

  useEffect(() => {
    if (result) resultRef.current?.focus()
  }, [result])

  const items = quotes.data?.items ?? NO_QUOTES
  const quotedMarkets = quotes.data?.markets
  const priceItems = prices.data?.items
  const rows = useMemo(() => marketRows(items, quotedMarkets ?? [], priceItems ?? []), [items, quotedMarkets, priceItems])
  const row = rows.find((r) => r.market === market)

  // Choosing a side pins the market's live quote on the ticket (its hold counts down there).
  const latest = useRef(items)
  useEffect(() => {
    latest.current = items
  }, [items])
  const onChoose = useCallback((chosenMarket: string, side: Side) => {
    const quote = latest.current.find((q) => q.market === chosenMarket && q.side === side)
    if (!quote || remainingSeconds(quote.expires_at, Date.now()) === 0) return
    setMarket(chosenMarket)
    setTicket((current) =>
      current && current.quote.market === quote.market && current.quote.side === quote.side
        ? { ...current, quote }
        : { key: newRefId(), quote, resume: null },
    )
  }, [])

  const onSelect = useCallback((next: string) => {
    setMarket(next)
    setTicket((current) => (current && current.quote.market !== next && !current.resume ? null : current))
  }, [])

  const onQuoteChange = useCallback((quote: Quote) => {
    setTicket((current) => (current ? { ...current, quote } : current))
  }, [])

  const profile = profiles.find((p) => p.id === profileId)
  const profileName = profile?.nickname ?? profileId ?? ""
  const onExecuted = useCallback(
    (record: QuoteExecution | ApprovalRequest, problem?: unknown) => {
      setTicket(null)
      const owner = record.profile_id ?? ""
      setResult({ record, problem, profileName: profiles.find((p) => p.id === owner)?.nickname ?? owner })
    },
    [profiles],
  )
  const onClose = useCallback(() => setTicket(null), [])

  useDeskShortcuts((key: DeskKey) => {
    if (key.kind === "help") setHelp(true)
    else if (key.kind === "side") {
      if (canTrade) onChoose(market, key.side)
    } else {
      const index = key.kind === "pick" ? key.index : rows.findIndex((r) => r.market === market) + key.by
      const next = rows[Math.min(Math.max(index, 0), rows.length - 1)]
      if (next && (key.kind === "move" || key.index < rows.length)) onSelect(next.market)
    }
  }, !help)

  const stale = quotes.data && (quotes.data.stale || quotes.isError) ? { since: formatTimestamp(quotes.data.fetched_at) } : null
  // The stream dropped: the prices are polled until it is back, and the page says they are not live.
  const notLive = useStreamState() === "down"

  return (
    // The desk's keys work once React has hydrated it (the server's HTML already shows the
    // prices): data-keys says when, for the e2e tests (a B pressed earlier does nothing).
    <div className="space-y-4" data-testid="trade-desk" data-keys={hydrated && !help ? "on" : "off"}>
      <div className="flex flex-wrap items-end justify-between gap-x-6 gap-y-2">
        <h1 className="text-2xl font-semibold">Trade</h1>
        <div className="flex flex-wrap items-end gap-3">
          <div className="w-56 max-w-full">
            <ProfilePicker profiles={profiles} profileId={profileId} onChange={setProfileId} />
          </div>
          <Button variant="ghost" size="sm" onClick={() => setHelp(true)} aria-keyshortcuts="?" data-testid="shortcuts-button" className="key-hint">
            Keyboard shortcuts <kbd className="rounded border border-slate-300 px-1 font-mono text-xs">?</kbd>
          </Button>
        </div>
      </div>
      {profilesError ? <ProblemAlert error={profilesError} /> : null}
      <div className="grid gap-4 lg:grid-cols-[minmax(0,1fr)_26rem] lg:items-start">
        <div className="min-w-0 space-y-4 lg:col-start-2 lg:row-start-1" data-testid="ticket-column">
          <Card title={`Order ticket · ${market}`} className="min-w-0">
            <SideTiles market={market} buy={row?.buy} sell={row?.sell} pending={quotes.isPending} canTrade={canTrade} activeSide={ticket?.quote.side ?? null} onChoose={onChoose} />
            {canTrade && !ticket ? (
              <p className="key-hint mt-2 text-xs text-slate-600">
                Choose a side, or press <kbd className="font-mono">B</kbd> to buy, <kbd className="font-mono">S</kbd> to sell.
              </p>
            ) : null}
            {!canTrade ? (
              <p className="mt-2 text-sm text-slate-600" data-testid="read-only-note">
                You can watch the quotes; executing them needs the trader role.
              </p>
            ) : null}
          </Card>
          {canTrade && ticket && profileId ? (
            <ExecutePanel
              key={`${ticket.key}:${ticket.quote.market}`}
              profileId={profileId}
              profileName={profileName}
              quote={ticket.quote}
              resume={ticket.resume}
              onQuoteChange={onQuoteChange}
              onExecuted={onExecuted}
              onClose={onClose}
            />
          ) : null}
          {result ? (
            <div ref={resultRef} tabIndex={-1} className="space-y-3 outline-none" data-testid="result">
              {result.problem ? <ProblemAlert error={result.problem} /> : null}
              {isApprovalRequest(result.record) ? (
                <RequestStatus
                  key={result.record.id}
                  initial={result.record}
                  record={(recordId) => (
                    <ExecutionRecordCard profileId={result.record.profile_id ?? ""} id={recordId} profileName={result.profileName} title="Execution placed" folded />
                  )}
                  actions={
                    <Button variant="ghost" size="sm" onClick={() => setResult(null)}>
                      Dismiss
                    </Button>
                  }
                />
              ) : (
                <ExecutionRecordCard
                  key={result.record.id}
                  profileId={result.record.profile_id}
                  id={result.record.id}
                  initial={result.record}
                  profileName={result.profileName}
                  title={result.problem ? "Existing execution" : "Execution placed"}
                  folded
                  actions={
                    <Button variant="ghost" size="sm" onClick={() => setResult(null)}>
                      Dismiss
                    </Button>
                  }
                />
              )}
            </div>
          ) : null}
          <Balances profileId={profileId} market={market} />
        </div>
        <div className="min-w-0 space-y-4 lg:col-start-1 lg:row-start-1">
          <PriceGrid
            rows={rows}
            selected={market}
            canTrade={canTrade}
            pending={quotes.isPending}
            stale={stale}
            notLive={notLive}
            error={quotes.error}
            onSelect={onSelect}
            onChoose={onChoose}
          />
          <MarketChart market={market} reviewing={ticket?.quote ?? null} />
          <RecentTrades profileId={profileId} />
        </div>
      </div>
      {help ? <ShortcutsHelp open onClose={() => setHelp(false)} canTrade={canTrade} /> : null}
    </div>
  )
}
