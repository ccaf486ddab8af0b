"use client"

import type { ReactNode } from "react"
import { useShownLive } from "@/components/notifications/live-records"
import { Badge, type BadgeTone } from "@/components/ui/badge"
import { Button } from "@/components/ui/button"
import { Card } from "@/components/ui/card"
import { ProblemAlert } from "@/components/ui/problem-alert"
import { Timestamp } from "@/components/ui/timestamp"
import { LimitPrice } from "@/components/approvals/limit-price"
import { Amount } from "@/components/ui/amount"
import { IdChip } from "@/components/ui/id-chip"
import { MarketPrice } from "@/components/ui/market-price"
import { useApprovalQuery, useDecideApprovalMutation } from "@/lib/queries/approvals"
import type { ApprovalRequest } from "@/lib/schemas/approvals"

/** How a request stands, in a person's words, and the badge's tone. */
export function requestStatus(request: ApprovalRequest): { label: string; tone: BadgeTone; detail: string | null } {
  const who = request.checker?.email
  switch (request.state) {
    case "PENDING":
      return { label: "Waiting for approval", tone: "warning", detail: `Someone other than ${request.maker.email} must approve it before it is sent.` }
    case "APPROVED":
      if (request.placement === "PLACED") return { label: "Approved", tone: "success", detail: `Approved by ${who ?? "a checker"} and placed.` }
      if (request.placement === "FAILED") return { label: "Approved, not placed", tone: "danger", detail: request.problem?.detail ?? "The service refused it." }
      return { label: "Approved", tone: "info", detail: `Approved by ${who ?? "a checker"}; sending it to the service…` }
    case "REJECTED":
      return { label: "Rejected", tone: "danger", detail: `Rejected by ${who ?? "a checker"}: ${request.reason ?? ""}` }
    case "WITHDRAWN":
      return { label: "Withdrawn", tone: "neutral", detail: "You withdrew it; nothing was sent." }
    case "EXPIRED":
      return { label: "Expired", tone: "neutral", detail: "No one approved it in time; nothing was sent." }
    case "PRICE_MOVED":
      return { label: "Price moved", tone: "danger", detail: request.problem?.detail ?? "The held price moved past the limit price; nothing was placed." }
    case "VOIDED":
      return { label: "Voided", tone: "danger", detail: `Voided: ${request.reason ?? "its maker no longer has the access to place it"}. Nothing was sent.` }
  }
}

/**
 * The maker's live view of their request: waiting for approval → approved → the placed
 * record (which then follows its own status to SETTLED), or rejected, expired, withdrawn
 * or price moved, with the reason. Polled until it is decided, without a reload.
 */
export function RequestStatus({
  initial,
  record,
  actions,
}: {
  initial: ApprovalRequest
  /** The placed record, kept live by the caller's own record view. */
  record: (recordId: string) => ReactNode
  actions?: ReactNode
}) {
  const query = useApprovalQuery(initial.id, { initialData: initial })
  const request = query.data ?? initial
  const withdraw = useDecideApprovalMutation()
  const status = requestStatus(request)
  useShownLive(request.id)
  return (
    <div className="space-y-3" data-testid="approval-request">
      <Card
        title={<span>Approval request</span>}
        actions={
          <div className="flex gap-2">
            {request.state === "PENDING" ? (
              <Button
                variant="secondary"
                size="sm"
                busy={withdraw.isPending}
                onClick={() => withdraw.mutate({ id: request.id, action: "withdraw" })}
                data-testid="withdraw-request"
              >
                Withdraw
              </Button>
            ) : null}
            {actions}
          </div>
        }
      >
        <p className="sr-only" aria-live="polite">
          {status.label}
        </p>
        <div className="space-y-2 text-sm">
          <p className="flex flex-wrap items-center gap-2">
            <Badge tone={status.tone}>
              <span data-testid="approval-state">{status.label}</span>
            </Badge>
            <span data-testid="approval-detail">{status.detail}</span>
          </p>
          <dl className="grid grid-cols-[10rem_1fr] gap-x-4 gap-y-1">
            <dt className="text-slate-600">Size</dt>
            <dd>
              <Amount value={request.size.amount} asset={request.size.currency} />
            </dd>
            {request.limit_price ? (
              <>
                <dt className="text-slate-600">Limit price</dt>
                <LimitPrice price={request.limit_price} market={request.market} side={request.side} testId="approval-limit-price" />
              </>
            ) : null}
            {request.executed_price ? (
              <>
                <dt className="text-slate-600">{request.state === "PRICE_MOVED" ? "Held price at approval" : "Executed at"}</dt>
                <dd>
                  <MarketPrice value={request.executed_price} market={request.market} />
                </dd>
              </>
            ) : null}
            <dt className="text-slate-600">Asked</dt>
            <dd>
              <Timestamp value={request.created_at} />
            </dd>
            <dt className="text-slate-600">Expires</dt>
            <dd>
              <Timestamp value={request.expires_at} />
            </dd>
            <dt className="text-slate-600">Reference</dt>
            <dd>
              <IdChip value={request.ref_id} label="ref_id" full />
            </dd>
          </dl>
        </div>
        {withdraw.error ? <ProblemAlert error={withdraw.error} className="mt-3" /> : null}
        {query.error ? <ProblemAlert error={query.error} className="mt-3" /> : null}
      </Card>
      {request.placement === "PLACED" && request.record_id ? record(request.record_id) : null}
    </div>
  )
}
