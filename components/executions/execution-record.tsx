import type { ReactNode } from "react"
import { Amount } from "@/components/ui/amount"
import { StatusBadge } from "@/components/ui/badge"
import { CopyableId } from "@/components/ui/copyable-id"
import { Timestamp } from "@/components/ui/timestamp"
import type { QuoteExecution } from "@/lib/schemas/records"

function Row({ label, children, testId }: { label: string; children: ReactNode; testId?: string }) {
  return (
    <div className="grid grid-cols-1 gap-1 py-2 sm:grid-cols-[12rem_1fr] sm:gap-4">
      <dt className="text-sm font-medium text-slate-600">{label}</dt>
      <dd className="min-w-0 text-sm text-slate-900" data-testid={testId}>
        {children}
      </dd>
    </div>
  )
}

/**
 * Every field of a quote execution. Amounts and the price are shown exactly as the
 * service wrote them (grouped for reading), times in UTC to the second.
 */
export function ExecutionRecord({
  execution,
  profileName,
  compact = false,
}: {
  execution: QuoteExecution
  profileName?: string | undefined
  /** Under a summary that already says the status: no status row, and no rows for fields the record does not have. */
  compact?: boolean
}) {
  const metadata = Object.entries(execution.metadata ?? {})
  const shown = (value: unknown) => !compact || value !== undefined
  return (
    <dl className="divide-y divide-slate-100" data-testid="execution-record">
      {compact ? null : (
        <Row label="Status">
          <StatusBadge status={execution.status} />
        </Row>
      )}
      <Row label="Execution id">
        <CopyableId value={execution.id} label="execution id" testId="record-id" />
      </Row>
      <Row label="Side" testId="record-side">
        {execution.side}
      </Row>
      <Row label="Market" testId="record-market">
        {execution.market}
      </Row>
      <Row label="Price">
        <span data-testid="record-price">
          <Amount value={execution.price} asset={`${execution.quote_asset} per ${execution.base_asset}`} />
        </span>
      </Row>
      <Row label={`Base amount (${execution.base_asset})`}>
        <span data-testid="record-base-amount">
          <Amount value={execution.base_amount} asset={execution.base_asset} />
        </span>
      </Row>
      <Row label={`Quote amount (${execution.quote_asset})`}>
        <span data-testid="record-quote-amount">
          <Amount value={execution.quote_amount} asset={execution.quote_asset} />
        </span>
      </Row>
      <Row label="Profile">
        {profileName ? <span className="mr-2">{profileName}</span> : null}
        <CopyableId value={execution.profile_id} label="profile id" testId="record-profile-id" />
      </Row>
      {shown(execution.quote_id) ? (
      <Row label="Quote id">
        <CopyableId value={execution.quote_id} label="quote id" testId="record-quote-id" />
      </Row>
      ) : null}
      {shown(execution.ref_id) ? (
      <Row label="Reference (ref_id)">
        <CopyableId value={execution.ref_id} label="ref_id" testId="record-ref-id" />
      </Row>
      ) : null}
      <Row label="Created at">
        <Timestamp value={execution.created_at} testId="record-created-at" />
      </Row>
      <Row label="Settled at">
        {execution.settled_at ? (
          <Timestamp value={execution.settled_at} testId="record-settled-at" />
        ) : (
          <span className="text-slate-600">Not settled yet</span>
        )}
      </Row>
      {compact && metadata.length === 0 ? null : (
      <Row label="Metadata">
        {metadata.length === 0 ? (
          <span className="text-slate-500">—</span>
        ) : (
          <ul className="space-y-1" data-testid="record-metadata">
            {metadata.map(([key, value]) => (
              <li key={key} className="break-all">
                <span className="font-mono text-xs font-semibold">{key}</span>: <span className="font-mono text-xs">{value}</span>
              </li>
            ))}
          </ul>
        )}
      </Row>
      )}
      {shown(execution.identity_id) ? (
        <Row label="Identity id">
          <CopyableId value={execution.identity_id} label="identity id" testId="record-identity-id" />
        </Row>
      ) : null}
      {shown(execution.account_id) ? (
        <Row label="Account id">
          <CopyableId value={execution.account_id} label="account id" testId="record-account-id" />
        </Row>
      ) : null}
      {shown(execution.recipient_profile_id) ? (
        <Row label="Recipient profile id">
          <CopyableId value={execution.recipient_profile_id} label="recipient profile id" testId="record-recipient-profile-id" />
        </Row>
      ) : null}
    </dl>
  )
}
