"use client"

import dynamic from "next/dynamic"
import { useCallback, useEffect, useMemo, useRef, useState } from "react"
import { ProfilePicker } from "@/components/profile/profile-picker"
import { Balances } from "@/components/trade/balances"
import { PENDING_KEY, loadExecutePanel, loadExecutionRecordCard, loadPendingSubmission } from "@/components/trade/lazy"
import { MarketPicker } from "@/components/trade/market-picker"
import type { PendingSubmission } from "@/components/trade/pending-submission"
import { QuotesBoard } from "@/components/trade/quotes-board"
import { Button } from "@/components/ui/button"
import { Card } from "@/components/ui/card"
import { ProblemAlert } from "@/components/ui/problem-alert"
import { isApprovalRequest } from "@/lib/queries/approvals"
import { useSelectedProfile } from "@/lib/queries/profiles"
import { newRefId } from "@/lib/queries/submission"
import { SEED_MARKETS } from "@/lib/schemas/assets"
import type { ApprovalRequest } from "@/lib/schemas/approvals"
import type { Quote, QuoteExecution } from "@/lib/schemas/records"

const ExecutePanel = dynamic(() => loadExecutePanel().then((m) => m.ExecutePanel), {
  ssr: false,
  loading: () => (
    <Card>
      <p className="text-sm text-slate-600">Opening the execute form…</p>
    </Card>
  ),
})

const ExecutionRecordCard = dynamic(() => loadExecutionRecordCard().then((m) => m.ExecutionRecordCard), {
  ssr: false,
  loading: () => (
    <Card>
      <p className="text-sm text-slate-600">Loading the execution…</p>
    </Card>
  ),
})

// The price chart comes after the board's first paint.
const MarketChart = dynamic(() => import("@/components/trade/market-chart").then((m) => m.MarketChart), { ssr: false })
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

/**
 * The trade desk: profile, balances, market, the live board, and (for traders) the
 * execute form and the placed execution's live record. Only the board ticks.
 */
export function TradeDesk({ canTrade }: { canTrade: boolean }) {
  const { profileId, profiles, setProfileId, error: profilesError } = useSelectedProfile()
  const [market, setMarket] = useState<string>("BTCUSD")
  const [seen, setSeen] = useState<readonly string[]>([])
  const [ticket, setTicket] = useState<Ticket | null>(null)
  const [result, setResult] = useState<Result | null>(null)
  const resultRef = useRef<HTMLDivElement>(null)

  // A submission left at the confirm step (or sent) before a reload is resumed: same
  // profile, same quote, same body, same ref_id. One that was sent is asked about, not sent again.
  useEffect(() => {
    if (!canTrade) return
    let stored: string | null = null
    try {
      stored = window.sessionStorage.getItem(PENDING_KEY)
    } catch {
      return
    }
    if (stored === null) return
    let cancelled = false
    void loadPendingSubmission().then(({ loadPending }) => {
      if (cancelled) return
      const pending = loadPending(window.sessionStorage, Date.now())
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

  const markets = useMemo(() => {
    const all = new Set<string>(SEED_MARKETS)
    for (const m of seen) all.add(m)
    all.add(market)
    return [...all]
  }, [seen, market])

  const onMarketsSeen = useCallback((found: readonly string[]) => {
    setSeen((current) => (found.every((m) => current.includes(m)) ? current : [...new Set([...current, ...found])]))
  }, [])

  const onChoose = useCallback((quote: Quote) => {
    setTicket((current) =>
      current && current.quote.market === quote.market && current.quote.side === quote.side
        ? { ...current, quote }
        : { key: newRefId(), quote, resume: null },
    )
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

  return (
    <div className="space-y-6">
      <h1 className="text-2xl font-semibold">Trade</h1>
      {profilesError ? <ProblemAlert error={profilesError} /> : null}
      <div className="grid gap-6 lg:grid-cols-[20rem_1fr]">
        <div className="space-y-4">
          <ProfilePicker profiles={profiles} profileId={profileId} onChange={setProfileId} />
          <MarketPicker
            markets={markets}
            market={market}
            onChange={(m) => {
              setMarket(m)
              setTicket(null)
            }}
          />
          <Balances profileId={profileId} market={market} />
        </div>
        <div className="min-w-0 space-y-6">
          <QuotesBoard market={market} canTrade={canTrade} onChoose={onChoose} onMarketsSeen={onMarketsSeen} />
          <MarketChart market={market} reviewing={ticket?.quote ?? null} />
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
                    <ExecutionRecordCard profileId={result.record.profile_id ?? ""} id={recordId} profileName={result.profileName} title="Execution placed" />
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
                  actions={
                    <Button variant="ghost" size="sm" onClick={() => setResult(null)}>
                      Dismiss
                    </Button>
                  }
                />
              )}
            </div>
          ) : null}
        </div>
      </div>
    </div>
  )
}
