"use client"

import { useEffect, useRef } from "react"
import { Amount } from "@/components/ui/amount"
import { cn } from "@/components/ui/cn"
import { formatAmount } from "@/lib/format"
import { Decimal, FIAT_DECIMALS, toDecimal } from "@/lib/money"
import { type PreTradeVerdict, shortfallOf } from "@/lib/pre-trade"

/** What the paying balance has against what the order needs. */
export interface Funds {
  asset: string
  needed: string
  /** Undefined while the balances load. */
  available: string | undefined
}

/** The pre-trade checks of an order under review: its verdict, and its payment against the balance. */
export interface ReviewChecks {
  verdict: PreTradeVerdict
  funds: Funds
}

function fiat(value: Decimal): string {
  return value.toFixed(FIAT_DECIMALS)
}

/** "9×" when `a` is at least twice `b`: how far over a figure is, at a glance. */
function times(a: Decimal, b: Decimal): string | null {
  if (b.lte(0) || a.lt(b.mul(2))) return null
  return `${formatAmount(a.div(b).toDecimalPlaces(0, 1).toFixed(0), null)}×`
}

/** The one-line answer above the figures: what the console will do with this order. */
export function verdictLine(verdict: PreTradeVerdict, shortfall: boolean): { tone: "danger" | "warning" | "info" | "ok"; text: string } {
  const { breach, size } = verdict
  if (breach?.limit === "per_order") {
    return { tone: "danger", text: `Over your limit per order of ${formatAmount(fiat(breach.amount), size.currency)} ${size.currency}: the console will refuse it.` }
  }
  if (breach?.limit === "per_day") {
    return {
      tone: "danger",
      text: `Over your daily limit of ${formatAmount(fiat(breach.amount), size.currency)} ${size.currency} (${formatAmount(fiat(breach.used), size.currency)} used today): the console will refuse it.`,
    }
  }
  if (shortfall) return { tone: "warning", text: "More than the profile has available: the service will refuse it unless funds arrive first." }
  if (verdict.needsApproval) return { tone: "info", text: "Needs a second person's approval: it is submitted for approval, not placed." }
  return { tone: "ok", text: "Within your limits; no approval needed." }
}

const TONE = {
  danger: "border-red-300 bg-red-50 text-red-900",
  warning: "border-amber-300 bg-amber-50 text-amber-950",
  info: "border-blue-300 bg-blue-50 text-blue-900",
  ok: "border-slate-200 bg-slate-50 text-slate-800",
} as const

/**
 * The pre-trade checks where the trader looks, in the ticket and in the review: the order's
 * size in both currencies, the paying balance and any shortfall, the limits per order and
 * per day with what is used today, and whether it needs approval. The facts come from the
 * server (GET /api/me/limits, the balances); the rules are the server's (lib/limits).
 */
export function PreTradeChecks({
  verdict,
  other,
  funds,
  testId = "pre-trade",
}: {
  verdict: PreTradeVerdict
  /** The order in its other currency (the crypto side of an execution), if it has one. */
  other?: { amount: string; asset: string } | undefined
  funds: Funds
  testId?: string
}) {
  const { size, facts } = verdict
  const short = shortfallOf({ asset: funds.asset, amount: funds.needed }, funds.available)
  const line = verdictLine(verdict, short !== null)
  const used = facts ? toDecimal(facts.used_today) : null
  // A refusal to come is not left below the fold: it scrolls into view when it appears.
  const box = useRef<HTMLDivElement>(null)
  const danger = line.tone === "danger" || line.tone === "warning"
  useEffect(() => {
    if (danger) box.current?.scrollIntoView({ block: "nearest" })
  }, [danger])
  return (
    <div ref={box} className={cn("rounded-md border px-3 py-2 text-sm", TONE[line.tone])} data-testid={testId}>
      <p className="font-semibold" data-testid={`${testId}-verdict`} role={line.tone === "danger" ? "alert" : undefined}>
        {line.text}
      </p>
      <dl className="mt-1 grid grid-cols-[auto_1fr] gap-x-3 gap-y-0.5">
        <dt>Order size</dt>
        <dd data-testid={`${testId}-size`}>
          <Amount value={fiat(size.amount)} asset={size.currency} />
          {other ? (
            <>
              {" "}
              = <Amount value={other.amount} asset={other.asset} />
            </>
          ) : null}
        </dd>
        <dt>Available</dt>
        <dd data-testid={`${testId}-available`}>
          {funds.available === undefined ? "…" : <Amount value={funds.available} asset={funds.asset} />}
          {short ? (
            <span className="block font-semibold" data-testid="shortfall">
              Insufficient funds: this needs <Amount value={short.needed} asset={short.asset} />; the profile has{" "}
              <Amount value={short.available} asset={short.asset} /> available, short by <Amount value={short.short} asset={short.asset} />
              {times(toDecimal(short.needed), toDecimal(short.available)) ? ` (${times(toDecimal(short.needed), toDecimal(short.available))} what is available)` : ""}.
            </span>
          ) : null}
        </dd>
        {facts ? (
          <>
            <dt>Per order</dt>
            <dd data-testid={`${testId}-per-order`}>
              {facts.per_order === null ? (
                "No limit"
              ) : (
                <>
                  limit <Amount value={facts.per_order} asset={size.currency} />
                  {verdict.breach?.limit === "per_order" && times(size.amount, toDecimal(facts.per_order)) ? (
                    <span className="font-semibold"> · this order is {times(size.amount, toDecimal(facts.per_order))} it</span>
                  ) : null}
                </>
              )}
            </dd>
            <dt>Today (UTC)</dt>
            <dd data-testid={`${testId}-per-day`}>
              used <Amount value={facts.used_today} asset={size.currency} />
              {facts.per_day === null ? (
                " · no daily limit"
              ) : (
                <>
                  {" "}
                  of <Amount value={facts.per_day} asset={size.currency} />
                  {used ? (
                    <>
                      {" "}
                      · left <Amount value={fiat(Decimal.max(toDecimal(facts.per_day).sub(used), 0))} asset={size.currency} />
                    </>
                  ) : null}
                </>
              )}
            </dd>
            <dt>Approval</dt>
            <dd data-testid={`${testId}-approval`}>
              {verdict.needsApproval ? "Needed" : "Not needed"}
              {verdict.threshold !== null ? (
                <span className="text-xs">
                  {" "}
                  (at or over <Amount value={verdict.threshold} asset={size.currency} />)
                </span>
              ) : null}
            </dd>
          </>
        ) : (
          <>
            <dt>Limits</dt>
            <dd>Loading your limits…</dd>
          </>
        )}
      </dl>
    </div>
  )
}
