"use client"

import Link from "next/link"
import { Alert } from "@/components/ui/alert"
import { Amount } from "@/components/ui/amount"
import { StatusBadge } from "@/components/ui/badge"
import { IdChip } from "@/components/ui/id-chip"
import { GridRow as Row } from "@/components/ui/detail-list"
import { StepTimeline } from "@/components/ui/step-timeline"
import { ProblemWithRetry, RefreshProblem, describeError } from "@/components/ui/problem-alert"
import { Timestamp } from "@/components/ui/timestamp"
import { ApiProblemError } from "@/lib/queries/api"
import { useProfilesQuery } from "@/lib/queries/profiles"
import { useTransferQuery } from "@/lib/queries/transfers"
import type { Transfer } from "@/lib/schemas/transfer"
import { transferTypeLabel } from "@/lib/schemas/transfer-constants"
import { directionLabel, transferTimeline } from "./format"

/** Created → pending at the service → completed or failed, with the times the service gave. */
export function TransferTimeline({ transfer }: { transfer: Transfer }) {
  return <StepTimeline steps={transferTimeline(transfer)} />
}

/** A transfer as support reads it: what moved, where, its fee and total, and for crypto the network and hash. */
export function TransferRecord({ transfer }: { transfer: Transfer }) {
  const profiles = useProfilesQuery()
  const profile = profiles.data?.find((p) => p.id === transfer.profile_id)
  const metadata = Object.entries(transfer.metadata ?? {})
  return (
    <section aria-label="Transfer" className="rounded-lg border border-slate-200 bg-white shadow-sm" data-testid="transfer-record">
      <header className="flex flex-wrap items-center justify-between gap-3 border-b border-slate-200 px-4 py-3">
        <h2 className="text-base font-semibold text-slate-900" data-testid="transfer-heading">
          {transferTypeLabel(transfer.type)}
        </h2>
        <span aria-live="polite" className="inline-flex items-center gap-2 text-sm">
          <span className="sr-only">Status:</span>
          <StatusBadge status={transfer.status} />
          {transfer.status === "PENDING" ? <span className="text-xs text-slate-600">updating live</span> : null}
        </span>
      </header>
      <div className="grid gap-6 p-4 md:grid-cols-[2fr_1fr]">
        <dl className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-2 text-sm">
          <Row label="Direction" testId="transfer-direction">
            {directionLabel(transfer.direction)}
          </Row>
          <Row label="Amount" testId="transfer-amount">
            <Amount value={transfer.amount} asset={transfer.asset} />
          </Row>
          <Row label="Fee" testId="transfer-fee">
            <Amount value={transfer.fee} asset={transfer.asset} />
          </Row>
          <Row label="Total" testId="transfer-total">
            <Amount value={transfer.total} asset={transfer.balance_asset ?? transfer.asset} />
            <span className="ml-2 text-xs text-slate-600">the balance change</span>
          </Row>
          <Row label="Transfer id" testId="transfer-id">
            <IdChip value={transfer.id} label="transfer id" full />
          </Row>
          <Row label="ref_id" testId="transfer-ref-id">
            <IdChip value={transfer.ref_id} label="ref_id" full />
          </Row>
          <Row label="Profile" testId="transfer-profile">
            {profile ? <span className="mr-2">{profile.nickname}</span> : null}
            <IdChip value={transfer.profile_id} label="profile id" full />
          </Row>
          {transfer.crypto_network ? (
            <Row label="Network" testId="transfer-network">
              {transfer.crypto_network}
            </Row>
          ) : null}
          {transfer.crypto_tx_hash ? (
            <Row label="Transaction hash" testId="transfer-tx-hash">
              <IdChip value={transfer.crypto_tx_hash} label="transaction hash" full />
            </Row>
          ) : null}
          {transfer.destination_address ? (
            <Row label="Destination address">
              <IdChip value={transfer.destination_address} label="destination address" full />
            </Row>
          ) : null}
          {transfer.memo ? <Row label="Memo">{transfer.memo}</Row> : null}
          {transfer.group_id ? (
            <Row label="Group id">
              <IdChip value={transfer.group_id} label="group id" full />
            </Row>
          ) : null}
          <Row label="Created">
            <Timestamp value={transfer.created_at} testId="transfer-created-at" />
          </Row>
          <Row label="Updated">
            <Timestamp value={transfer.updated_at} testId="transfer-updated-at" />
          </Row>
          {metadata.length > 0 ? (
            <Row label="Metadata">
              <ul className="space-y-0.5">
                {metadata.map(([key, value]) => (
                  <li key={key}>
                    <span className="font-medium">{key}</span>: {value}
                  </li>
                ))}
              </ul>
            </Row>
          ) : null}
        </dl>
        <div>
          <h3 className="mb-3 text-sm font-semibold text-slate-800">Story</h3>
          <TransferTimeline transfer={transfer} />
        </div>
      </div>
    </section>
  )
}

/** One transfer, read again while it is pending at the service. */
export function TransferDetail({ id }: { id: string }) {
  const query = useTransferQuery(id)
  if (query.isPending) {
    return (
      <p role="status" className="text-sm text-slate-700">
        Loading the transfer…
      </p>
    )
  }
  if (!query.data) {
    const status = query.error instanceof ApiProblemError ? query.error.status : null
    if (status === 404 || status === 400) {
      return (
        <Alert tone="danger" title="Transfer not found">
          <p data-testid="not-found">{describeError(query.error).detail ?? `No transfer has the id “${id}”.`}</p>
          <p className="mt-2">
            <Link href={`/search?q=${encodeURIComponent(id)}`} className="font-medium text-blue-800 underline">
              Search for “{id}”
            </Link>
          </p>
        </Alert>
      )
    }
    return <ProblemWithRetry error={query.error} onRetry={() => void query.refetch()} />
  }
  return (
    <div className="space-y-4">
      <TransferRecord transfer={query.data} />
      <RefreshProblem error={query.error} />
    </div>
  )
}
