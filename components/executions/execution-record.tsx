import { Amount, Price } from "@/components/ui/amount"
import { StatusBadge } from "@/components/ui/badge"
import { IdChip } from "@/components/ui/id-chip"
import { DetailList, DetailRow } from "@/components/ui/detail-list"
import { Timestamp } from "@/components/ui/timestamp"
import type { QuoteExecution } from "@/lib/schemas/records"

/**
 * Every field of a quote execution. Amounts and the price are shown exactly as the
 * service wrote them (grouped for reading, the price padded to its market's tick), times
 * in UTC to the second; ids as one-line chips.
 */
export function ExecutionRecord({
  execution,
  profileName,
  tick,
  compact = false,
}: {
  execution: QuoteExecution
  profileName?: string | undefined
  /** The market's tick_rate from the service (useTickRate): the price's decimals, as the desk shows them. */
  tick?: string | undefined
  /** Under a summary that already says the status: no status row, and no rows for fields the record does not have. */
  compact?: boolean
}) {
  const metadata = Object.entries(execution.metadata ?? {})
  const shown = (value: unknown) => !compact || value !== undefined
  return (
    <DetailList testId="execution-record">
      {compact ? null : (
        <DetailRow label="Status">
          <StatusBadge status={execution.status} />
        </DetailRow>
      )}
      <DetailRow label="Execution id">
        <IdChip value={execution.id} label="execution id" testId="record-id" full />
      </DetailRow>
      <DetailRow label="Side" testId="record-side">
        {execution.side}
      </DetailRow>
      <DetailRow label="Market" testId="record-market">
        {execution.market}
      </DetailRow>
      <DetailRow label="Price">
        <span data-testid="record-price">
          <Price value={execution.price} tick={tick} unit={`${execution.quote_asset} per ${execution.base_asset}`} />
        </span>
      </DetailRow>
      <DetailRow label={`Base amount (${execution.base_asset})`}>
        <span data-testid="record-base-amount">
          <Amount value={execution.base_amount} asset={execution.base_asset} />
        </span>
      </DetailRow>
      <DetailRow label={`Quote amount (${execution.quote_asset})`}>
        <span data-testid="record-quote-amount">
          <Amount value={execution.quote_amount} asset={execution.quote_asset} />
        </span>
      </DetailRow>
      <DetailRow label="Profile">
        {profileName ? <span className="mr-2">{profileName}</span> : null}
        <IdChip value={execution.profile_id} label="profile id" testId="record-profile-id" full />
      </DetailRow>
      {shown(execution.quote_id) ? (
      <DetailRow label="Quote id">
        <IdChip value={execution.quote_id} label="quote id" testId="record-quote-id" full />
      </DetailRow>
      ) : null}
      {shown(execution.ref_id) ? (
      <DetailRow label="Reference (ref_id)">
        <IdChip value={execution.ref_id} label="ref_id" testId="record-ref-id" full />
      </DetailRow>
      ) : null}
      <DetailRow label="Created at">
        <Timestamp value={execution.created_at} testId="record-created-at" />
      </DetailRow>
      <DetailRow label="Settled at">
        {execution.settled_at ? (
          <Timestamp value={execution.settled_at} testId="record-settled-at" />
        ) : (
          <span className="text-slate-600">Not settled yet</span>
        )}
      </DetailRow>
      {compact && metadata.length === 0 ? null : (
      <DetailRow label="Metadata">
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
      </DetailRow>
      )}
      {shown(execution.identity_id) ? (
        <DetailRow label="Identity id">
          <IdChip value={execution.identity_id} label="identity id" testId="record-identity-id" full />
        </DetailRow>
      ) : null}
      {shown(execution.account_id) ? (
        <DetailRow label="Account id">
          <IdChip value={execution.account_id} label="account id" testId="record-account-id" full />
        </DetailRow>
      ) : null}
      {shown(execution.recipient_profile_id) ? (
        <DetailRow label="Recipient profile id">
          <IdChip value={execution.recipient_profile_id} label="recipient profile id" testId="record-recipient-profile-id" full />
        </DetailRow>
      ) : null}
    </DetailList>
  )
}
