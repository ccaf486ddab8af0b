import { IdChip } from "@/components/ui/id-chip"
import { Badge } from "@/components/ui/badge"
import { Table, TableBody, TableHead, Td, Th, Tr } from "@/components/ui/table"
import { Timestamp } from "@/components/ui/timestamp"
import type { DecisionEntry } from "@/lib/console/approvals/decision-trail"

/** What an outcome code means, in words (the code itself is shown beside it). */
const OUTCOMES: Record<string, string> = {
  done: "Done",
  step_up_required: "Passkey asked for",
  step_up_expired: "Refused: challenge expired",
  step_up_replayed: "Refused: replayed",
  step_up_digest_mismatch: "Refused: signed for something else",
  step_up_foreign_credential: "Refused: someone else's passkey",
  step_up_not_user_verified: "Refused: user not verified",
  step_up_invalid: "Refused: assertion invalid",
  state_conflict: "Refused: not pending",
  not_allowed: "Refused: not allowed",
  policy_stale: "Refused: policy changed since",
  policy_change_pending: "Refused: another change waits",
  policy_change_expired: "Refused: change expired",
  not_found: "Refused: not found",
  role_required: "Refused: role",
  limit_exceeded: "Refused: maker's limit",
  validation_failed: "Refused: bad input",
}

const ACTIONS: Record<string, string> = {
  approve: "Approve",
  reject: "Reject",
  policy_propose: "Propose a policy change",
  policy_apply: "Apply a policy change (single admin)",
  policy_approve: "Approve a policy change",
  policy_reject: "Reject a policy change",
  policy_withdraw: "Withdraw a policy change",
}

/**
 * The decision trail (console_approval_decisions): every approve and reject attempt (on requests and on policy changes),
 * refused ones too, with the passkey credential, whether the user was verified and the
 * digest of what was signed.
 */
export function DecisionTrail({ entries }: { entries: DecisionEntry[] }) {
  if (entries.length === 0) return <p className="text-sm text-slate-700">No approval decisions yet.</p>
  return (
    <Table caption="Approval decisions, refused attempts included" framed testId="decision-trail">
      <TableHead>
        <Th>When</Th>
        <Th>Action</Th>
        <Th>Who</Th>
        <Th>Requests</Th>
        <Th>Outcome</Th>
        <Th>Passkey</Th>
        <Th>User verified</Th>
        <Th>Digest signed</Th>
      </TableHead>
      <TableBody>
        {entries.map((e) => (
          <Tr key={e.id} data-testid="decision-entry" data-outcome={e.outcome}>
            <Td className="whitespace-nowrap">
              <Timestamp value={e.at} />
            </Td>
            <Td data-testid="decision-action" data-action={e.action}>
              {ACTIONS[e.action] ?? e.action}
            </Td>
            <Td>
              {e.staff_email} <span className="text-slate-600">({e.staff_role})</span>
            </Td>
            <Td>
              <span className="flex flex-col gap-0.5">
                {e.request_ids.map((id) => (
                  // A policy change's id: its page is the policy section of /approvals.
                  <IdChip key={id} value={id} label={e.action.startsWith("policy_") ? "policy change" : "request"} href={e.action.startsWith("policy_") ? "/approvals#policy-heading" : `/intents/${id}`} />
                ))}
              </span>
            </Td>
            <Td>
              <Badge tone={e.outcome === "done" ? "success" : e.outcome === "step_up_required" ? "neutral" : "danger"}>{OUTCOMES[e.outcome] ?? "Refused"}</Badge>{" "}
              <code className="font-mono text-xs">{e.outcome}</code>
            </Td>
            <Td>
              <IdChip value={e.credential_id} label="credential" />
            </Td>
            <Td>{e.user_verified === null ? <span className="text-slate-600">—</span> : e.user_verified ? "yes" : "no"}</Td>
            <Td>
              <IdChip value={e.digest} label="digest" />
            </Td>
          </Tr>
        ))}
      </TableBody>
    </Table>
  )
}
