"use client"

import { useState } from "react"
import { Amount } from "@/components/ui/amount"
import { Button } from "@/components/ui/button"
import { Card } from "@/components/ui/card"
import { ProblemAlert } from "@/components/ui/problem-alert"
import { Table, TableBody, TableHead, Td, Th, Tr } from "@/components/ui/table"
import { Timestamp } from "@/components/ui/timestamp"
import { PolicyForm } from "@/components/approvals/policy-form"
import { formatCount } from "@/lib/format"
import { PendingPolicyChange, RecentPolicyChanges } from "@/components/approvals/pending-policy-change"
import { usePolicyChangesQuery, usePolicyQuery } from "@/lib/queries/approvals"

function PerCurrency({ values }: { values: Partial<Record<string, string>> }) {
  const entries = Object.entries(values)
  if (entries.length === 0) return <span className="text-slate-500">none</span>
  return (
    <span className="flex flex-wrap gap-3">
      {entries.map(([currency, amount]) => (
        <Amount key={currency} value={amount} asset={currency} />
      ))}
    </span>
  )
}

/**
 * The approval policy for admins: thresholds, limits, and each trader's usage of the UTC
 * day. It is edited in a form, field by field (each error names its field and rule); a
 * change, once its diff is reviewed, waits for another active admin's approval (shown here
 * as a diff, with Approve/Reject, or Withdraw for its maker), or applies at once when this
 * admin is the only one; every change goes on the audit trail with before and after.
 */
export function PolicySection({ me }: { me: string }) {
  const query = usePolicyQuery()
  const changes = usePolicyChangesQuery()
  const pending = changes.data?.pending ?? null
  const [editing, setEditing] = useState(false)
  const view = query.data
  const policy = view?.policy
  return (
    <section aria-labelledby="policy-heading" className="space-y-4" data-testid="policy-section">
      <h2 id="policy-heading" className="text-xl font-semibold">
        Policy
      </h2>
      {query.error ? <ProblemAlert error={query.error} /> : null}
      {policy && view ? (
        <>
          <Card title="Approval and limits">
            <dl className="grid grid-cols-[14rem_1fr] gap-x-4 gap-y-2 text-sm">
              <dt className="text-slate-600">Executions need approval at</dt>
              <dd>
                <PerCurrency values={policy.approval_thresholds.execution} />
              </dd>
              <dt className="text-slate-600">Conversions need approval at</dt>
              <dd>
                <PerCurrency values={policy.approval_thresholds.conversion} />
              </dd>
              <dt className="text-slate-600">Orders need a passkey at</dt>
              <dd>
                <PerCurrency values={policy.step_up_over ?? {}} />
              </dd>
              <dt className="text-slate-600">Approvers</dt>
              <dd data-testid="policy-tiers-view">
                {(policy.approval_tiers ?? []).length === 0 ? (
                  <span>one, a trader or an admin (no tiers)</span>
                ) : (
                  <ul className="space-y-1">
                    {(policy.approval_tiers ?? []).map((tier, i) => (
                      <li key={i} className="flex flex-wrap items-center gap-2">
                        <span>From</span>
                        <PerCurrency values={tier.at_or_over} />
                        <span>
                          : {formatCount(tier.approvers)} {tier.approvers === 1 ? "approver" : "distinct approvers"} ({tier.roles.join(" or ")})
                        </span>
                      </li>
                    ))}
                    <li className="text-slate-600">Under the first tier: one, a trader or an admin. The maker never counts.</li>
                  </ul>
                )}
              </dd>
              <dt className="text-slate-600">Limit price tolerance</dt>
              <dd>{policy.price_tolerance_percent} %</dd>
              <dt className="text-slate-600">Requests expire after</dt>
              <dd>{policy.request_ttl_minutes} minutes</dd>
              {Object.entries(policy.role_limits).map(([role, limits]) => (
                <div key={role} className="contents">
                  <dt className="text-slate-600">{role}s: per order / per day</dt>
                  <dd className="space-y-1">
                    <PerCurrency values={limits.per_order} />
                    <PerCurrency values={limits.per_day} />
                  </dd>
                </div>
              ))}
              {Object.entries(policy.staff_limits).map(([email, limits]) => (
                <div key={email} className="contents">
                  <dt className="text-slate-600">{email}: per order / per day</dt>
                  <dd className="space-y-1">
                    <PerCurrency values={limits.per_order} />
                    <PerCurrency values={limits.per_day} />
                  </dd>
                </div>
              ))}
            </dl>
            <p className="mt-3 text-xs text-slate-600">
              {view.updated_by ? (
                <>
                  <span data-testid="policy-version">Version {formatCount(view.version)}</span>, saved by {view.updated_by}, <Timestamp value={view.updated_at} />. Every saved
                  policy is kept as a version; each request records the version it was judged under.
                </>
              ) : (
                "The defaults: no admin has changed the policy yet."
              )}
            </p>
          </Card>
          <Card title={`Usage today (UTC day ${view.day})`}>
            {view.usage_today.length === 0 ? (
              <p className="text-sm text-slate-600">No orders yet today.</p>
            ) : (
              <Table caption="Each staff member's orders today against their limits" testId="usage-table">
                <TableHead>
                  <tr>
                    <Th>Staff</Th>
                    <Th align="right">Used today</Th>
                    <Th align="right">Daily limit</Th>
                    <Th align="right">Per order</Th>
                  </tr>
                </TableHead>
                <TableBody>
                  {view.usage_today.map((u) => (
                    <Tr key={`${u.staff_email}:${u.currency}`} data-testid="usage-row">
                      <Td>{u.staff_email}</Td>
                      <Td align="right">
                        <Amount value={u.used_today} asset={u.currency} />
                      </Td>
                      <Td align="right">{u.per_day ? <Amount value={u.per_day} asset={u.currency} /> : "none"}</Td>
                      <Td align="right">{u.per_order ? <Amount value={u.per_order} asset={u.currency} /> : "none"}</Td>
                    </Tr>
                  ))}
                </TableBody>
              </Table>
            )}
          </Card>
          {changes.data ? <PendingPolicyChange page={changes.data} me={me} /> : null}
          <Card title="Change the policy">
            {pending ? (
              <p className="text-sm text-slate-700">One change waits at a time: the one above must be approved, rejected, withdrawn or expire before another is proposed.</p>
            ) : editing ? (
              <PolicyForm policy={policy} onDone={() => setEditing(false)} />
            ) : (
              <div className="space-y-2">
                <p className="text-sm text-slate-700">A change waits for another active admin to approve it (with their passkey); with no other active admin it applies at once and is flagged on the audit trail.</p>
                <Button variant="secondary" onClick={() => setEditing(true)} data-testid="edit-policy">
                  Edit
                </Button>
              </div>
            )}
            {changes.data ? <RecentPolicyChanges items={changes.data.items} /> : null}
          </Card>
        </>
      ) : query.isPending ? (
        <p className="text-sm text-slate-600">Loading the policy…</p>
      ) : null}
    </section>
  )
}
