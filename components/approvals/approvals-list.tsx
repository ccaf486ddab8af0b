"use client"

import { useRef, useState } from "react"
import { ApprovalFacts, approvalProgress, requestQuantity } from "@/components/approvals/approval-facts"
import { DecisionButtons } from "@/components/approvals/decision-buttons"
import { requestStatus } from "@/components/approvals/request-status"
import { Amount } from "@/components/ui/amount"
import { Badge } from "@/components/ui/badge"
import { Button } from "@/components/ui/button"
import { Card } from "@/components/ui/card"
import { Field, Input } from "@/components/ui/field"
import { ProblemAlert } from "@/components/ui/problem-alert"
import { useShownLive } from "@/components/notifications/live-records"
import { formatCount } from "@/lib/format"
import { useApprovalsQuery, useBulkApproveMutation, useDecideApprovalMutation } from "@/lib/queries/approvals"
import type { ApprovalRequest } from "@/lib/schemas/approvals"

/** What the request asks for, in a line: "BUY 0.12 BTC on BTCUSD" or "Convert 12,000.00 USD → USDP". */
function Summary({ request }: { request: ApprovalRequest }) {
  const quantity = requestQuantity(request)
  const amount = quantity ? <Amount value={quantity.value} asset={quantity.asset} /> : null
  if (request.kind === "conversion") return <span>Convert {amount} → {typeof request.request.target_asset === "string" ? request.request.target_asset : "?"}</span>
  return (
    <span>
      {request.side ?? ""} {amount} on {request.market ?? "?"}
    </span>
  )
}

/**
 * Approve, or reject with a reason: one text box, which is the comment on an approval and
 * the reason (required) on a rejection. The maker may only withdraw.
 */
function Decide({ request, me }: { request: ApprovalRequest; me: string }) {
  const decide = useDecideApprovalMutation()
  const [note, setNote] = useState("")
  const [missingReason, setMissingReason] = useState(false)
  const noteRef = useRef<HTMLInputElement>(null)
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
  const trimmed = note.trim()
  const approvedByMe = request.approvals.given.some((g) => g.email.toLowerCase() === me.toLowerCase())
  const waitingFor = request.approvals.required - request.approvals.given.length
  return (
    <div className="space-y-2">
      {approvedByMe ? (
        <p className="text-sm text-slate-600" data-testid="approved-by-me">
          You approved this; it waits for {waitingFor === 1 ? "one more approver" : `${formatCount(waitingFor)} more approvers`}.
        </p>
      ) : null}
      <Field
        label="Comment, or reason to reject"
        hint="Optional to approve; a reason is required to reject."
        error={missingReason && trimmed === "" ? "Give a reason to reject." : undefined}
      >
        {(props) => (
          <Input {...props} ref={noteRef} value={note} onChange={(e) => setNote(e.target.value)} maxLength={500} data-testid="decision-note" />
        )}
      </Field>
      <DecisionButtons
        showApprove={!approvedByMe}
        sending={decide.isPending ? decide.variables?.action : undefined}
        reason={trimmed}
        onApprove={() => decide.mutate({ id: request.id, action: "approve", comment: trimmed || undefined })}
        onReject={(why) => decide.mutate({ id: request.id, action: "reject", reason: why })}
        onMissingReason={() => {
          setMissingReason(true)
          noteRef.current?.focus()
        }}
        testIds={{ approve: "approve", reject: "reject" }}
      />
      {decide.error ? <ProblemAlert error={decide.error} /> : null}
    </div>
  )
}

/** Approval requests, pending first: each with the live quote beside the limit price, who asked, when, and what it will cost. */
export function ApprovalsList({ me }: { me: string }) {
  const query = useApprovalsQuery()
  const items = query.data?.items ?? []
  const bulk = useBulkApproveMutation()
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set())
  // Only requests still pending and someone else's can be chosen; a decided one drops out.
  const mineOrApproved = (r: ApprovalRequest) => r.maker.email.toLowerCase() === me.toLowerCase() || r.approvals.given.some((g) => g.email.toLowerCase() === me.toLowerCase())
  const choosable = new Set(items.filter((r) => r.state === "PENDING" && !mineOrApproved(r)).map((r) => r.id))
  const chosen = [...selected].filter((id) => choosable.has(id))
  const toggle = (id: string, on: boolean) => setSelected((was) => (on ? new Set([...was, id]) : new Set([...was].filter((x) => x !== id))))
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
      {choosable.size > 1 ? (
        <div className="flex flex-wrap items-center gap-3">
          <Button size="sm" disabled={chosen.length === 0 || bulk.isPending} busy={bulk.isPending} onClick={() => bulk.mutate(chosen, { onSuccess: () => setSelected(new Set()) })} data-testid="bulk-approve">
            Approve selected ({chosen.length})
          </Button>
          <span className="text-sm text-slate-600">One passkey confirmation covers every request selected.</span>
        </div>
      ) : null}
      {bulk.error ? <ProblemAlert error={bulk.error} /> : null}
      {bulk.data?.items.some((i) => "problem" in i) ? (
        <ProblemAlert error={new Error(bulk.data.items.flatMap((i) => ("problem" in i ? [i.problem.detail ?? i.problem.code ?? "refused"] : [])).join(" "))} />
      ) : null}
      {query.data && items.length === 0 ? <p className="text-sm text-slate-600">No requests yet.</p> : null}
      <ul className="space-y-3">
        {items.map((request) => {
          const status = requestStatus(request)
          return (
            <li key={request.id} id={`request-${request.id}`} className="scroll-mt-24" data-testid="approval-item" data-ref-id={request.ref_id} data-state={request.state}>
              <Card
                title={
                  <span className="flex flex-wrap items-center gap-2">
                    <Badge tone={status.tone}>
                      <span data-testid="approval-state">{status.label}</span>
                    </Badge>
                    {choosable.has(request.id) ? (
                      <input
                        type="checkbox"
                        aria-label="Select for bulk approval"
                        className="h-4 w-4"
                        checked={selected.has(request.id)}
                        onChange={(e) => toggle(request.id, e.target.checked)}
                        data-testid="bulk-select"
                      />
                    ) : null}
                    <Summary request={request} />
                    {request.state === "PENDING" && request.approvals.required > 1 ? (
                      <Badge tone="info">
                        <span data-testid="approval-count">{approvalProgress(request)}</span>
                      </Badge>
                    ) : null}
                  </span>
                }
              >
                <div className="grid gap-4 md:grid-cols-[1fr_20rem]">
                  <div className="space-y-2">
                    <ApprovalFacts request={request} />
                    {status.detail && request.state !== "PENDING" ? (
                      <p className="text-sm" data-testid="approval-outcome">
                        {status.detail}
                      </p>
                    ) : null}
                    {request.comment ? <p className="text-sm text-slate-700">Comment: {request.comment}</p> : null}
                  </div>
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
