"use client"

import Link from "next/link"
import { OPERATION_LABELS, recordHref, requestAmounts } from "@/components/audit/format"
import { attemptsNote } from "@/components/intents/attempts"
import { Amount } from "@/components/ui/amount"
import { Badge, type BadgeTone } from "@/components/ui/badge"
import { Table, TableBody, TableHead, Td, Th, Tr } from "@/components/ui/table"
import { Timestamp } from "@/components/ui/timestamp"
import { CONVERSIONS_API_LABELS, type ConversionsApi } from "@/lib/schemas/constants"
import type { AuditEntry } from "@/lib/queries/audit"

const STATE_TONES: Record<string, BadgeTone> = {
  PENDING: "info",
  SUCCEEDED: "success",
  FAILED: "danger",
  UNKNOWN: "warning",
  AWAITING_APPROVAL: "warning",
}

export function IntentStateBadge({ state }: { state: string }) {
  return (
    <Badge tone={STATE_TONES[state] ?? "neutral"}>
      <span data-testid="intent-state">{state}</span>
    </Badge>
  )
}

function Mono({ children }: { children: string }) {
  return <span className="font-mono text-xs break-all">{children}</span>
}

/** The intents: who did what, when, with which result. */
export function AuditTable({ entries, profileNames }: { entries: readonly AuditEntry[]; profileNames: ReadonlyMap<string, string> }) {
  return (
    <Table framed caption="Audit trail, newest first" tableClassName="min-w-[72rem]">
      <TableHead>
        <Th>Time (UTC)</Th>
        <Th>Staff</Th>
        <Th>Operation</Th>
        <Th>Profile</Th>
        <Th>Amounts</Th>
        <Th>ref_id</Th>
        <Th>State</Th>
        <Th>Record</Th>
        <Th>Problem</Th>
      </TableHead>
      <TableBody>
        {entries.map((entry) => {
          const href = recordHref(entry)
          const amounts = requestAmounts(entry)
          const profileName = entry.profile_id ? profileNames.get(entry.profile_id) : undefined
          return (
            <Tr key={entry.id} data-testid="audit-row" data-ref-id={entry.ref_id ?? undefined}>
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
              <Td>
                {entry.profile_id ? (
                  <>
                    {profileName ? <div>{profileName}</div> : null}
                    <Mono>{entry.profile_id}</Mono>
                  </>
                ) : (
                  <span className="text-slate-500">—</span>
                )}
              </Td>
              <Td data-testid="audit-amounts">
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
              <Td className="max-w-[11rem]">
                {entry.ref_id !== null ? (
                  <Mono>{entry.ref_id}</Mono>
                ) : (
                  <span className="text-xs text-slate-600" title="A cancel carries no ref_id; it names the conversion it cancels">
                    cancel of <Mono>{entry.target_id ?? "—"}</Mono>
                  </span>
                )}
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
              <Td className="max-w-[11rem]">
                {entry.record_id ? (
                  href ? (
                    <Link href={href} className="text-blue-700 underline" data-testid="audit-record">
                      <Mono>{entry.record_id}</Mono>
                    </Link>
                  ) : (
                    <Mono>{entry.record_id}</Mono>
                  )
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
