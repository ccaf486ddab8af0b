"use client"

import { useState } from "react"
import { DecisionButtons } from "@/components/approvals/decision-buttons"
import { PolicyChangesTable } from "@/components/approvals/policy-changes-table"
import { Badge, type BadgeTone } from "@/components/ui/badge"
import { Button } from "@/components/ui/button"
import { Card } from "@/components/ui/card"
import { Field, Input } from "@/components/ui/field"
import { ProblemAlert } from "@/components/ui/problem-alert"
import { Table, TableBody, TableHead, Td, Th, Tr } from "@/components/ui/table"
import { Timestamp } from "@/components/ui/timestamp"
import { formatCount } from "@/lib/format"
import { useDecidePolicyChangeMutation } from "@/lib/queries/approvals"
import type { PolicyChangeView, PolicyChangesPage } from "@/lib/schemas/approvals"
import { policyDiff } from "@/lib/schemas/policy-diff"

const STATE_TONES: Record<PolicyChangeView["state"], BadgeTone> = {
  PENDING: "warning",
  APPLIED: "success",
  REJECTED: "danger",
  WITHDRAWN: "neutral",
  STALE: "danger",
  EXPIRED: "neutral",
}

/** Approve or reject (another admin, with their passkey when the console asks for it), or withdraw (the maker). */
function DecideChange({ change, me }: { change: PolicyChangeView; me: string }) {
  const decide = useDecidePolicyChangeMutation()
  const [reason, setReason] = useState("")
  const [missingReason, setMissingReason] = useState(false)
  const mine = change.proposed_by.toLowerCase() === me.toLowerCase()
  if (mine) {
    return (
      <div className="space-y-2">
        <p className="text-sm text-slate-700" data-testid="policy-change-mine">
          You proposed this change; another admin must approve it. You may withdraw it.
        </p>
        <Button variant="secondary" size="sm" busy={decide.isPending} onClick={() => decide.mutate({ id: change.id, action: "withdraw" })} data-testid="policy-change-withdraw">
          Withdraw
        </Button>
        {decide.error ? <ProblemAlert error={decide.error} /> : null}
      </div>
    )
  }
  const trimmed = reason.trim()
  return (
    <div className="space-y-2">
      <Field label="Reason to reject" hint="Required to reject; approving asks for your passkey when the console needs it." error={missingReason && trimmed === "" ? "Give a reason to reject." : undefined}>
        {(props) => <Input {...props} value={reason} onChange={(e) => setReason(e.target.value)} maxLength={500} data-testid="policy-change-reason" />}
      </Field>
      <DecisionButtons
        approveLabel="Approve and apply"
        sending={decide.isPending ? decide.variables?.action : undefined}
        reason={trimmed}
        onApprove={() => decide.mutate({ id: change.id, action: "approve" })}
        onReject={(why) => decide.mutate({ id: change.id, action: "reject", reason: why })}
        onMissingReason={() => setMissingReason(true)}
        testIds={{ approve: "policy-change-approve", reject: "policy-change-reject" }}
      />
      {decide.error ? <ProblemAlert error={decide.error} /> : null}
    </div>
  )
}

/**
 * The policy change waiting for a second admin: who proposed it, the version it was made
 * against, its diff field by field (before → after, through the one formatter), and what
 * this admin may do with it.
 */
export function PendingPolicyChange({ page, me }: { page: PolicyChangesPage; me: string }) {
  const change = page.pending
  if (!change || !page.pending_before) return null
  const changes = policyDiff(page.pending_before, change.policy)
  const stale = change.base_version !== page.version
  return (
    <Card title="A policy change waits for a second admin">
      <div className="space-y-3" data-testid="pending-policy-change" data-change-id={change.id}>
        <p className="text-sm">
          Proposed by <strong data-testid="policy-change-maker">{change.proposed_by}</strong>, <Timestamp value={change.proposed_at} />, against version{" "}
          {formatCount(change.base_version)}; it expires <Timestamp value={change.expires_at} />.{" "}
          {changes.length === 1 ? "1 field changes" : `${formatCount(changes.length)} fields change`}.
        </p>
        {stale ? (
          <p className="text-sm font-medium text-red-700" data-testid="policy-change-stale">
            The policy is at version {formatCount(page.version)} now: approving it will be refused as stale. Withdraw or reject it, and propose it again.
          </p>
        ) : null}
        <PolicyChangesTable changes={changes} caption="What the pending change changes" testId="pending-policy-diff" />
        <DecideChange change={change} me={me} />
      </div>
    </Card>
  )
}

/** The recent policy changes: state, who proposed and decided, the version each made. */
export function RecentPolicyChanges({ items }: { items: PolicyChangeView[] }) {
  if (items.length === 0) return null
  return (
    <Table caption="Recent policy changes, newest first" testId="policy-changes">
      <TableHead>
        <tr>
          <Th>Proposed</Th>
          <Th>By</Th>
          <Th>State</Th>
          <Th>Decided by</Th>
          <Th align="right">Version</Th>
        </tr>
      </TableHead>
      <TableBody>
        {items.map((c) => (
          <Tr key={c.id} data-testid="policy-change-row" data-state={c.state}>
            <Td className="whitespace-nowrap">
              <Timestamp value={c.proposed_at} />
            </Td>
            <Td>{c.proposed_by}</Td>
            <Td>
              <Badge tone={STATE_TONES[c.state]}>{c.state}</Badge>
              {c.single_admin ? (
                <>
                  {" "}
                  <Badge tone="warning">Single admin</Badge>
                </>
              ) : null}
              {c.reason ? <span className="ml-1 text-xs text-slate-600">{c.reason}</span> : null}
            </Td>
            <Td>{c.decided_by ?? "—"}</Td>
            <Td align="right">{c.applied_version === null ? "—" : formatCount(c.applied_version)}</Td>
          </Tr>
        ))}
      </TableBody>
    </Table>
  )
}
