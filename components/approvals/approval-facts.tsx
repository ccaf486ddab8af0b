"use client"

import Link from "next/link"
import { LimitPrice } from "@/components/approvals/limit-price"
import { Amount } from "@/components/ui/amount"
import { MarketPrice } from "@/components/ui/market-price"
import { Badge } from "@/components/ui/badge"
import { IdChip } from "@/components/ui/id-chip"
import { Timestamp } from "@/components/ui/timestamp"
import { formatCount } from "@/lib/format"
import { tryDecimal } from "@/lib/money"
import { useProfilesQuery } from "@/lib/queries/profiles"
import { useQuotesQuery } from "@/lib/queries/quotes"
import { conversionPath, executionPath } from "@/lib/record-paths"
import type { ApprovalRequest } from "@/lib/schemas/approvals"
import { parseMarket } from "@/lib/schemas/assets"

const text = (value: unknown) => (typeof value === "string" && value !== "" ? value : undefined)

/** What the request asks to buy, sell or convert, with its asset: "0.12 BTC" or "12,000.00 USD". */
export function requestQuantity(request: ApprovalRequest): { value: string; asset: string } | null {
  const r = request.request
  if (request.kind === "conversion") {
    const amount = text(r.amount)
    return amount ? { value: amount, asset: text(r.source_asset) ?? request.size.currency } : null
  }
  const market = request.market ? parseMarket(request.market) : null
  const base = text(r.base_amount)
  if (base) return { value: base, asset: market?.base ?? "" }
  const quote = text(r.quote_amount)
  return quote ? { value: quote, asset: market?.quote ?? request.size.currency } : null
}

/** Whether a price keeps to the limit: at or under it for a buy, at or over it for a sell. */
function withinLimit(side: string | null, price: string, limit: string | null): boolean | null {
  const p = tryDecimal(price)
  const l = tryDecimal(limit)
  if (!p || !l) return null
  return side === "BUY" ? p.lte(l) : p.gte(l)
}

/** The held price now beside the limit price, while the request waits: the approver sees whether it would execute. */
function HeldPriceNow({ request }: { request: ApprovalRequest }) {
  const market = request.market
  const quotes = useQuotesQuery(market ? [market] : [], { enabled: Boolean(market) })
  const held = quotes.data?.items.find((q) => q.market === market && q.side === request.side)
  if (!held) return <span className="text-slate-500">—</span>
  const within = withinLimit(request.side, held.price, request.limit_price) ?? true
  return (
    <span data-testid="live-price">
      <MarketPrice value={held.price} market={market} /> <Badge tone={within ? "success" : "danger"}>{within ? "within limit" : "past limit"}</Badge>
    </span>
  )
}

/** The price the approval executed at against the limit: "filled at X, within the limit (limit Y)". */
function FillAgainstLimit({ request }: { request: ApprovalRequest }) {
  if (!request.executed_price) return null
  const within = withinLimit(request.side, request.executed_price, request.limit_price)
  const moved = request.state === "PRICE_MOVED"
  return (
    <>
      <dt className="text-slate-600">{moved ? "Held price at approval" : "Filled at"}</dt>
      <dd data-testid="approval-fill">
        <MarketPrice value={request.executed_price} market={request.market} />{" "}
        {within === null ? null : (
          <Badge tone={within ? "success" : "danger"}>{within ? "within the limit" : "past the limit"}</Badge>
        )}
      </dd>
    </>
  )
}

/** The record an approved request placed, linked; and the console's intent behind it. */
function PlacedRecord({ request }: { request: ApprovalRequest }) {
  if (!request.record_id) return null
  const href =
    request.kind === "conversion" ? conversionPath(request.record_id) : request.profile_id ? executionPath(request.profile_id, request.record_id) : null
  return (
    <>
      <dt className="text-slate-600">Placed record</dt>
      <dd className="flex flex-wrap items-center gap-2">
        {href ? (
          <Link href={href} className="text-blue-700 underline" data-testid="approval-record">
            {request.kind === "conversion" ? "Open the conversion" : "Open the execution"}
          </Link>
        ) : null}
        <IdChip value={request.record_id} label="record id" />
        {request.record_status ? <span className="text-xs text-slate-600">{request.record_status} when placed</span> : null}
      </dd>
    </>
  )
}

/** "1 of 2 approvals", as the request stands. */
export function approvalProgress(request: ApprovalRequest): string {
  const { required, given } = request.approvals
  return `${formatCount(given.length)} of ${formatCount(required)} ${required === 1 ? "approval" : "approvals"}`
}

/** Its approvals: how many of how many, which roles may give them, and each given (who, when, with a passkey or not). */
function Approvals({ request }: { request: ApprovalRequest }) {
  const { given, roles, required } = request.approvals
  return (
    <>
      <dt className="text-slate-600">Approvals</dt>
      <dd data-testid="approval-progress" className="space-y-0.5">
        <span className="font-medium">{approvalProgress(request)}</span>
        {required > 1 || roles.length < 2 ? <span className="text-slate-600"> (distinct approvers: {roles.join(" or ")}; never the maker)</span> : null}
        {request.policy_version !== null ? <span className="text-slate-600"> under policy version {formatCount(request.policy_version)}</span> : null}
        {given.length > 0 ? (
          <ul className="text-xs text-slate-700">
            {given.map((g) => (
              <li key={g.email} data-testid="approval-given">
                {g.email} ({g.role}), <Timestamp value={g.at} />
                {g.credential_id ? ", with a passkey" : ""}
              </li>
            ))}
          </ul>
        ) : null}
      </dd>
    </>
  )
}

/**
 * Everything a checker decides on: profile, side and market, quantity, notional, the limit
 * price and, while it waits, the held price now; once decided, who decided, the fill
 * against the limit and the placed record.
 */
export function ApprovalFacts({ request }: { request: ApprovalRequest }) {
  const profiles = useProfilesQuery()
  const profileName = request.profile_id ? profiles.data?.find((p) => p.id === request.profile_id)?.nickname : undefined
  const quantity = requestQuantity(request)
  const pending = request.state === "PENDING"
  return (
    <dl className="grid grid-cols-[9rem_1fr] gap-x-3 gap-y-1 text-sm">
      <dt className="text-slate-600">Profile</dt>
      <dd data-testid="approval-profile" className="flex flex-wrap items-center gap-2">
        {profileName ? <span>{profileName}</span> : null}
        <IdChip value={request.profile_id} label="profile id" />
      </dd>
      {request.kind === "execution" ? (
        <>
          <dt className="text-slate-600">Side and market</dt>
          <dd data-testid="approval-side">
            {request.side ?? "—"} {request.market ?? ""}
          </dd>
        </>
      ) : null}
      <dt className="text-slate-600">Quantity</dt>
      <dd data-testid="approval-quantity">{quantity ? <Amount value={quantity.value} asset={quantity.asset} /> : "—"}</dd>
      <dt className="text-slate-600">Notional</dt>
      <dd data-testid="approval-notional">
        <Amount value={request.size.amount} asset={request.size.currency} />
      </dd>
      {request.limit_price ? (
        <>
          <dt className="text-slate-600">Limit price</dt>
          <LimitPrice price={request.limit_price} market={request.market} side={request.side} testId="approval-limit">
            {request.reviewed_price ? (
              <span className="text-slate-600">
                {" "}
                (reviewed at <MarketPrice value={request.reviewed_price} market={request.market} />)
              </span>
            ) : null}
          </LimitPrice>
        </>
      ) : null}
      {pending && request.limit_price ? (
        <>
          <dt className="text-slate-600">Held price now</dt>
          <dd>
            <HeldPriceNow request={request} />
          </dd>
        </>
      ) : null}
      <FillAgainstLimit request={request} />
      <PlacedRecord request={request} />
      <dt className="text-slate-600">Asked by</dt>
      <dd data-testid="approval-maker">{request.maker.email}</dd>
      <dt className="text-slate-600">Asked</dt>
      <dd>
        <Timestamp value={request.created_at} />
      </dd>
      <dt className="text-slate-600">{pending ? "Expires" : "Decided"}</dt>
      <dd>
        <Timestamp value={pending ? request.expires_at : request.decided_at} />
      </dd>
      <Approvals request={request} />
      {request.checker ? (
        <>
          <dt className="text-slate-600">{request.state === "REJECTED" ? "Rejected by" : "Approved by"}</dt>
          <dd data-testid="approval-checker">{request.checker.email}</dd>
        </>
      ) : null}
      <dt className="text-slate-600">Reference</dt>
      <dd className="flex flex-wrap items-center gap-2">
        <IdChip value={request.ref_id} label="ref_id" />
        <Link href={`/intents/${request.id}`} className="text-blue-700 underline" data-testid="approval-intent">
          Its story
        </Link>
      </dd>
    </dl>
  )
}
