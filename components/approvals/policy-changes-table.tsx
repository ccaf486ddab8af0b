"use client"

import { Badge } from "@/components/ui/badge"
import { Table, TableBody, TableHead, Td, Th, Tr } from "@/components/ui/table"
import { formatPolicyValue } from "@/lib/format"
import type { PolicyChange } from "@/lib/schemas/policy-diff"

/** A policy change, field by field (before → after), every value through formatPolicyValue. */
export function PolicyChangesTable({ changes, caption, testId }: { changes: PolicyChange[]; caption: string; testId: string }) {
  return (
    <Table caption={caption} testId={testId}>
      <TableHead>
        <tr>
          <Th>Field</Th>
          <Th>Now</Th>
          <Th>After the change</Th>
        </tr>
      </TableHead>
      <TableBody>
        {changes.map((c) => (
          <Tr key={c.field} data-testid="policy-change" data-field={c.field}>
            <Td>
              <code className="font-mono text-xs">{c.field}</code>
            </Td>
            <Td className={c.before === null ? "text-slate-500" : "tabular"}>{formatPolicyValue(c.field, c.before)}</Td>
            <Td className={c.after === null ? "text-slate-500" : "font-semibold tabular"}>{formatPolicyValue(c.field, c.after)}</Td>
          </Tr>
        ))}
      </TableBody>
    </Table>
  )
}

/** A policy change in a few lines, "field: before → after" (the audit table, an intent's page). */
export function PolicyChangeLines({ changes, max, testId, className }: { changes: PolicyChange[]; max?: number; testId: string; className?: string }) {
  if (changes.length === 0) return <span className="text-xs text-slate-600">no field changed</span>
  const shown = max === undefined ? changes : changes.slice(0, max)
  return (
    <ul className={`space-y-0.5 ${className ?? ""}`} data-testid={testId}>
      {shown.map((c) => (
        <li key={c.field}>
          <span className="font-mono text-xs">{c.field}</span>: {formatPolicyValue(c.field, c.before)} → <strong>{formatPolicyValue(c.field, c.after)}</strong>
        </li>
      ))}
      {changes.length > shown.length ? <li className="text-slate-600">and {changes.length - shown.length} more</li> : null}
    </ul>
  )
}

/** Who approved a policy change (its audit entry's request), or the flag of a change the only active admin applied at once. */
export function PolicyChangeWho({ request }: { request: Record<string, unknown> }) {
  if (request.single_admin === true) {
    return (
      <span data-testid="policy-single-admin">
        <Badge tone="warning">Single admin</Badge> <span className="text-slate-600">applied at once: no other active admin to approve it</span>
      </span>
    )
  }
  if (typeof request.approved_by === "string") {
    return (
      <span className="text-slate-600" data-testid="policy-approved-by">
        Proposed by {typeof request.proposed_by === "string" ? request.proposed_by : "?"}, approved by {request.approved_by}
      </span>
    )
  }
  return null
}
