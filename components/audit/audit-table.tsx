"use client"

import Link from "next/link"
import { OPERATION_LABELS, recordHref, requestAmounts } from "@/components/audit/format"
import { attemptsNote } from "@/components/intents/attempts"
import { Amount } from "@/components/ui/amount"
import { Badge, type BadgeTone } from "@/components/ui/badge"
import { Table, TableBody, TableHead, Td, Th, Tr } from "@/components/ui/table"
import { IdChip } from "@/components/ui/id-chip"
import { Timestamp } from "@/components/ui/timestamp"
import { CONVERSIONS_API_LABELS, type ConversionsApi } from "@/lib/schemas/constants"
import type { AuditEntry } from "@/lib/queries/audit"
import { policyDiff } from "@/lib/schemas/policy-diff"
import { PolicyChangeLines, PolicyChangeWho } from "@/components/approvals/policy-changes-table"

const STATE_TONES: Record<string, BadgeTone> = {
  PENDING: "info",
  SUCCEEDED: "success",
  FAILED: "danger",
  UNKNOWN: "warning",
  AWAITING_APPROVAL: "warning",
  REFUSED: "danger",
}

export function IntentStateBadge({ state }: { state: string }) {
  return (
    <Badge tone={STATE_TONES[state] ?? "neutral"}>
      <span data-testid="intent-state">{state}</span>
    </Badge>
  )
}

/** What a policy change changed, one field a line (the first few; the intent page has the rest), and who approved it or that a single admin applied it. */
function PolicyChanges({ request }: { request: Record<string, unknown> }) {
  return (
    <span className="flex flex-col gap-1 text-xs">
      <PolicyChangeLines changes={policyDiff(request.before, request.after)} max={4} testId="audit-policy-diff" />
      <PolicyChangeWho request={request} />
    </span>
  )
}

/** The key an intent is known by: a create's ref_id, a cancel's conversion, a policy change's fields. */
function IntentKey({ entry }: { entry: AuditEntry }) {
  if (entry.operation === "update_policy") return <PolicyChanges request={entry.request} />
  if (entry.ref_id !== null) return <IdChip value={entry.ref_id} label="ref_id" />
  return (
    <span className="whitespace-nowrap text-xs text-slate-600" title="A cancel carries no ref_id; it names the conversion it cancels">
      cancels <IdChip value={entry.target_id} label="conversion id" />
    </span>
  )
}

/** The intents: who did what, when, with which result. */
export function AuditTable({ entries, profileNames }: { entries: readonly AuditEntry[]; profileNames: ReadonlyMap<string, string> }) {
  return (
    <Table framed caption="Audit trail, newest first" tableClassName="min-w-[84rem]">
      <TableHead>
        <Th>Time (UTC)</Th>
        <Th>Staff</Th>
        <Th>Operation</Th>
        <Th>Market / side</Th>
        <Th>Profile</Th>
        <Th>Amounts</Th>
        <Th>ref_id / change</Th>
        <Th>State</Th>
        <Th>Approver</Th>
        <Th>Record</Th>
        <Th>Problem</Th>
      </TableHead>
      <TableBody>
        {entries.map((entry) => {
          const href = recordHref(entry)
          const amounts = requestAmounts(entry)
          const profileName = entry.profile_id ? profileNames.get(entry.profile_id) : undefined
          return (
            <Tr key={entry.id} data-testid="audit-row" data-ref-id={entry.ref_id ?? undefined} data-state={entry.state}>
              <Td>
                <Timestamp value={entry.created_at} />
              </Td>
              <Td>
                <div data-testid="audit-staff">{entry.staff_email}</div>
                <div className="text-xs uppercase text-slate-600" data-testid="audit-role">
                  {entry.staff_role}
                </div>
              </Td>
              <Td data-testid="audit-operation" data-operation={entry.operation}>
                {OPERATION_LABELS[entry.operation] ?? entry.operation}
                {entry.upstream_api ? (
                  <div className="text-xs text-slate-600" data-testid="audit-upstream-api" title="The service's conversion API this went to">
                    via {CONVERSIONS_API_LABELS[entry.upstream_api as ConversionsApi] ?? entry.upstream_api}
                  </div>
                ) : null}
              </Td>
              <Td data-testid="audit-market" className="whitespace-nowrap">
                {entry.market || entry.side ? (
                  <>
                    {entry.market ?? "—"} <span className="text-xs font-medium">{entry.side ?? ""}</span>
                  </>
                ) : (
                  <span className="text-slate-500">—</span>
                )}
              </Td>
              <Td>
                {entry.profile_id ? (
                  <>
                    {profileName ? <div>{profileName}</div> : null}
                    <IdChip value={entry.profile_id} label="profile id" />
                  </>
                ) : (
                  <span className="text-slate-500">—</span>
                )}
              </Td>
              <Td data-testid="audit-amounts">
                {entry.size && entry.operation === "create_execution" ? (
                  <div data-testid="audit-notional">
                    <Amount value={entry.size.amount} asset={entry.size.currency} /> <span className="text-xs text-slate-600">notional</span>
                  </div>
                ) : null}
                {amounts.length === 0 ? (
                  <span className="text-slate-500">—</span>
                ) : (
                  <ul className="space-y-0.5">
                    {amounts.map((a) => (
                      <li key={a.field}>
                        <Amount value={a.value} asset={a.asset} />{" "}
                        <span className="text-xs text-slate-600">{a.label}</span>
                      </li>
                    ))}
                  </ul>
                )}
              </Td>
              <Td data-testid="audit-key">
                <IntentKey entry={entry} />
              </Td>
              <Td>
                <IntentStateBadge state={entry.state} />
                {attemptsNote(entry) ? (
                  <div className="mt-1 text-xs font-medium text-amber-900" data-testid="audit-attempts" title="Sends to the service for this ref_id, retries included">
                    {attemptsNote(entry)}
                  </div>
                ) : null}
                {entry.record_status ? (
                  <div className="mt-1 text-xs text-slate-600" title="The record's status when the intent resolved">
                    record was {entry.record_status}
                  </div>
                ) : null}
              </Td>
              <Td data-testid="audit-approver">
                {entry.approver ? (
                  <>
                    <div>{entry.approver}</div>
                    <div className="text-xs text-slate-600">{entry.approval_state === "REJECTED" ? "rejected" : "approved"}</div>
                  </>
                ) : entry.approval_state === "PENDING" ? (
                  <span className="text-xs text-slate-600">waiting</span>
                ) : (
                  <span className="text-slate-500">—</span>
                )}
              </Td>
              <Td>
                {entry.record_id ? (
                  <span className="inline-flex items-center gap-1 whitespace-nowrap">
                    {href ? (
                      <Link href={href} className="text-blue-700 underline" data-testid="audit-record">
                        open
                      </Link>
                    ) : null}
                    <IdChip value={entry.record_id} label="record id" />
                  </span>
                ) : (
                  <span className="text-slate-500">—</span>
                )}
              </Td>
              <Td className="max-w-[14rem]" data-testid="audit-problem">
                {entry.problem ? (
                  <>
                    <div className="font-medium text-red-800">
                      {entry.problem.title}
                      {entry.problem.status ? <span className="font-normal text-slate-600"> ({entry.problem.status})</span> : null}
                    </div>
                    {entry.problem.detail ? <div className="text-xs text-slate-700">{entry.problem.detail}</div> : null}
                  </>
                ) : (
                  <span className="text-slate-500">—</span>
                )}
              </Td>
            </Tr>
          )
        })}
      </TableBody>
    </Table>
  )
}
