"use client"

import { useState } from "react"
import { requestStatus } from "@/components/approvals/request-status"
import { Amount, Price } from "@/components/ui/amount"
import { Badge } from "@/components/ui/badge"
import { Button } from "@/components/ui/button"
import { Card } from "@/components/ui/card"
import { Field, Input } from "@/components/ui/field"
import { ProblemAlert } from "@/components/ui/problem-alert"
import { Timestamp } from "@/components/ui/timestamp"
import { CONVERSION_DECIMALS, formatAmount } from "@/lib/format"
import { tryDecimal } from "@/lib/money"
import { parseMarket } from "@/lib/schemas/assets"
import { useShownLive } from "@/components/notifications/live-records"
import { useApprovalsQuery, useDecideApprovalMutation } from "@/lib/queries/approvals"
import { useQuotesQuery } from "@/lib/queries/quotes"
import type { ApprovalRequest } from "@/lib/schemas/approvals"

/** What the request asks for, in a line. */
function summary(request: ApprovalRequest): string {
  const r = request.request
  if (request.kind === "conversion") return `Convert ${formatAmount(String(r.amount), String(r.source_asset), CONVERSION_DECIMALS)} ${String(r.source_asset)} → ${String(r.target_asset)}`
  const base = parseMarket(request.market ?? "")?.base
  const amount =
    typeof r.base_amount === "string"
      ? `${formatAmount(r.base_amount, base ?? null)} ${base ?? "(base)"}`
      : `${formatAmount(String(r.quote_amount), request.size.currency)} ${request.size.currency}`
  return `${request.side ?? ""} ${request.market ?? ""} for ${amount}`
}

/** The held price now beside the limit price: the approver sees whether it would execute. */
function LiveQuote({ request }: { request: ApprovalRequest }) {
  const market = request.market
  const quotes = useQuotesQuery(market ? [market] : [], { enabled: Boolean(market) && request.state === "PENDING" })
  if (!market || request.state !== "PENDING") return null
  const held = quotes.data?.items.find((q) => q.market === market && q.side === request.side)
  if (!held) return <span className="text-slate-500">—</span>
  const price = tryDecimal(held.price)
  const limit = tryDecimal(request.limit_price)
  const within = !price || !limit || (request.side === "BUY" ? price.lte(limit) : price.gte(limit))
  return (
    <span data-testid="live-price">
      <Price value={held.price} /> <Badge tone={within ? "success" : "danger"}>{within ? "within limit" : "past limit"}</Badge>
    </span>
  )
}

function Decide({ request, me }: { request: ApprovalRequest; me: string }) {
  const decide = useDecideApprovalMutation()
  const [comment, setComment] = useState("")
  const [reason, setReason] = useState("")
  const [rejecting, setRejecting] = useState(false)
  const mine = request.maker.email.toLowerCase() === me.toLowerCase()
  if (request.state !== "PENDING") return null
  if (mine) {
    return (
      <div className="space-y-2">
        <p className="text-sm text-slate-600">You asked for this; someone else must approve it.</p>
        <Button variant="secondary" size="sm" busy={decide.isPending} onClick={() => decide.mutate({ id: request.id, action: "withdraw" })}>
          Withdraw
        </Button>
        {decide.error ? <ProblemAlert error={decide.error} /> : null}
      </div>
    )
  }
  return (
    <div className="space-y-2">
      <Field label="Comment (optional)">{(props) => <Input {...props} value={comment} onChange={(e) => setComment(e.target.value)} maxLength={500} />}</Field>
      {rejecting ? (
        <Field label="Reason for rejecting">
          {(props) => <Input {...props} value={reason} onChange={(e) => setReason(e.target.value)} maxLength={500} data-testid="reject-reason" />}
        </Field>
      ) : null}
      <div className="flex flex-wrap gap-2">
        <Button
          size="sm"
          busy={decide.isPending && decide.variables?.action === "approve"}
          disabled={decide.isPending}
          onClick={() => decide.mutate({ id: request.id, action: "approve", comment: comment || undefined })}
          data-testid="approve"
        >
          Approve
        </Button>
        {rejecting ? (
          <Button
            variant="danger"
            size="sm"
            busy={decide.isPending && decide.variables?.action === "reject"}
            disabled={decide.isPending}
            onClick={() => decide.mutate({ id: request.id, action: "reject", reason, comment: comment || undefined })}
            data-testid="confirm-reject"
          >
            Reject
          </Button>
        ) : (
          <Button variant="secondary" size="sm" onClick={() => setRejecting(true)} data-testid="reject">
            Reject…
          </Button>
        )}
      </div>
      {decide.error ? <ProblemAlert error={decide.error} /> : null}
    </div>
  )
}

/** Approval requests, pending first: each with the live quote beside the limit price, who asked, when, and what it will cost. */
export function ApprovalsList({ me }: { me: string }) {
  const query = useApprovalsQuery()
  const items = query.data?.items ?? []
  // The list follows every request live: a decision on one is not repeated as a toast here.
  useShownLive(...items.map((request) => request.id))
  return (
    <section aria-labelledby="approvals-heading" className="space-y-4">
      <div className="flex items-baseline gap-3">
        <h1 id="approvals-heading" className="text-2xl font-semibold">
          Approvals
        </h1>
        {query.data ? <span className="text-sm text-slate-600">{query.data.pending_count} pending</span> : null}
      </div>
      {query.error ? <ProblemAlert error={query.error} /> : null}
      {query.data && items.length === 0 ? <p className="text-sm text-slate-600">No requests yet.</p> : null}
      <ul className="space-y-3">
        {items.map((request) => {
          const status = requestStatus(request)
          return (
            <li key={request.id} data-testid="approval-item" data-ref-id={request.ref_id} data-state={request.state}>
              <Card
                title={
                  <span className="flex flex-wrap items-center gap-2">
                    <Badge tone={status.tone}>
                      <span data-testid="approval-state">{status.label}</span>
                    </Badge>
                    <span>{summary(request)}</span>
                  </span>
                }
              >
                <div className="grid gap-4 md:grid-cols-[1fr_20rem]">
                  <dl className="grid grid-cols-[9rem_1fr] gap-x-3 gap-y-1 text-sm">
                    <dt className="text-slate-600">Costs about</dt>
                    <dd>
                      <Amount value={request.size.amount} asset={request.size.currency} />
                    </dd>
                    {request.limit_price ? (
                      <>
                        <dt className="text-slate-600">Limit price</dt>
                        <dd>
                          <Price value={request.limit_price} /> <span className="text-slate-600">(reviewed at <Price value={request.reviewed_price} />)</span>
                        </dd>
                        <dt className="text-slate-600">Held price now</dt>
                        <dd>
                          <LiveQuote request={request} />
                          {request.executed_price ? <Price value={request.executed_price} /> : null}
                        </dd>
                      </>
                    ) : null}
                    <dt className="text-slate-600">Asked by</dt>
                    <dd data-testid="approval-maker">{request.maker.email}</dd>
                    <dt className="text-slate-600">Asked</dt>
                    <dd>
                      <Timestamp value={request.created_at} />
                    </dd>
                    <dt className="text-slate-600">{request.state === "PENDING" ? "Expires" : "Decided"}</dt>
                    <dd>
                      <Timestamp value={request.state === "PENDING" ? request.expires_at : request.decided_at} />
                    </dd>
                    {request.checker ? (
                      <>
                        <dt className="text-slate-600">Checker</dt>
                        <dd>{request.checker.email}</dd>
                      </>
                    ) : null}
                    {status.detail && request.state !== "PENDING" ? (
                      <>
                        <dt className="text-slate-600">Outcome</dt>
                        <dd>{status.detail}</dd>
                      </>
                    ) : null}
                    {request.comment ? (
                      <>
                        <dt className="text-slate-600">Comment</dt>
                        <dd>{request.comment}</dd>
                      </>
                    ) : null}
                  </dl>
                  <Decide request={request} me={me} />
                </div>
              </Card>
            </li>
          )
        })}
      </ul>
    </section>
  )
}
