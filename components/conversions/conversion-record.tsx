"use client"

import { CONVERSION_DECIMALS } from "@/lib/format"
import type { Ref } from "react"
import { useShownLive } from "@/components/notifications/live-records"
import { Amount } from "@/components/ui/amount"
import { StatusBadge } from "@/components/ui/badge"
import { IdChip } from "@/components/ui/id-chip"
import { GridRow as Row } from "@/components/ui/detail-list"
import { StepTimeline } from "@/components/ui/step-timeline"
import { Timestamp } from "@/components/ui/timestamp"
import { useProfilesQuery } from "@/lib/queries/profiles"
import { isTerminalStatus } from "@/lib/schemas/constants"
import type { Conversion } from "@/lib/schemas/records"
import { conversionTimeline } from "./format"

/** The states a conversion went through, with their times. */
export function ConversionTimeline({ conversion }: { conversion: Conversion }) {
  return <StepTimeline steps={conversionTimeline(conversion)} />
}

/**
 * A conversion as support and treasury read it: status, amount and pair, ids with copy
 * buttons, on-behalf-of ids, metadata, and every time as it arrives.
 */
export function ConversionRecord({
  conversion,
  heading = "Conversion",
  headingRef,
  timeline = true,
}: {
  conversion: Conversion
  heading?: string
  /** Its status steps; off where the page shows the record's whole story instead. */
  timeline?: boolean
  /** For moving the keyboard here after an action (the heading becomes focusable from script). */
  headingRef?: Ref<HTMLHeadingElement>
}) {
  const profiles = useProfilesQuery()
  const profile = profiles.data?.find((p) => p.id === conversion.profile_id)
  const recipient = profiles.data?.find((p) => p.id === conversion.recipient_profile_id)
  const metadata = Object.entries(conversion.metadata ?? {})
  const live = !isTerminalStatus(conversion.status)
  useShownLive(conversion.id)
  return (
    <section aria-label={heading} className="rounded-lg border border-slate-200 bg-white shadow-sm" data-testid="conversion-record">
      <header className="flex flex-wrap items-center justify-between gap-3 border-b border-slate-200 px-4 py-3">
        <h2 ref={headingRef} tabIndex={headingRef ? -1 : undefined} className="text-base font-semibold text-slate-900" data-testid="conversion-heading">
          {heading}
        </h2>
        <span aria-live="polite" className="inline-flex items-center gap-2 text-sm">
          <span className="sr-only">Status:</span>
          <StatusBadge status={conversion.status} of="conversion" />
          {live ? <span className="text-xs text-slate-600">updating live</span> : null}
        </span>
      </header>
      <div className="grid gap-6 p-4 md:grid-cols-[2fr_1fr]">
        <dl className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-2 text-sm">
          <Row label="Amount" testId="conversion-amount">
            <Amount value={conversion.amount} asset={conversion.source_asset} places={CONVERSION_DECIMALS} />
            {conversion.target_asset ? (
              <>
                {" "}
                <span aria-hidden>→</span>
                <span className="sr-only">to</span> {conversion.target_asset}
              </>
            ) : null}
          </Row>
          <Row label="Conversion id" testId="conversion-id">
            <IdChip value={conversion.id} label="conversion id" full />
          </Row>
          <Row label="ref_id" testId="conversion-ref-id">
            <IdChip value={conversion.ref_id} label="ref_id" full />
          </Row>
          <Row label="Profile" testId="conversion-profile">
            {profile ? <span className="mr-2">{profile.nickname}</span> : null}
            <IdChip value={conversion.profile_id} label="profile id" full />
          </Row>
          {conversion.identity_id ? (
            <Row label="Identity id">
              <IdChip value={conversion.identity_id} label="identity id" full />
            </Row>
          ) : null}
          {conversion.account_id ? (
            <Row label="Account id">
              <IdChip value={conversion.account_id} label="account id" full />
            </Row>
          ) : null}
          {conversion.recipient_profile_id ? (
            <Row label="Recipient profile">
              {recipient ? <span className="mr-2">{recipient.nickname}</span> : null}
              <IdChip value={conversion.recipient_profile_id} label="recipient profile id" full />
            </Row>
          ) : null}
          <Row label="Created">
            <Timestamp value={conversion.created_at} testId="conversion-created-at" />
          </Row>
          <Row label="Updated">
            <Timestamp value={conversion.updated_at} testId="conversion-updated-at" />
          </Row>
          {conversion.settled_at ? (
            <Row label="Settled">
              <Timestamp value={conversion.settled_at} testId="conversion-settled-at" />
            </Row>
          ) : null}
          {conversion.status === "FAILED" ? (
            <Row label="Failure reason" testId="conversion-fail-reason">
              <span className="text-red-800">{conversion.fail_reason?.detail ?? "The service gave no reason."}</span>
            </Row>
          ) : null}
          {conversion.cancelled_at ? (
            <Row label="Cancelled">
              <Timestamp value={conversion.cancelled_at} testId="conversion-cancelled-at" />
            </Row>
          ) : null}
          <Row label="Metadata" testId="conversion-metadata">
            {metadata.length === 0 ? (
              <span className="text-slate-500">none</span>
            ) : (
              <ul className="space-y-0.5">
                {metadata.map(([key, value]) => (
                  <li key={key}>
                    <span className="font-medium">{key}</span>: {value}
                  </li>
                ))}
              </ul>
            )}
          </Row>
        </dl>
        {timeline ? (
          <div>
            <h3 className="mb-3 text-sm font-semibold text-slate-800">Timeline</h3>
            <ConversionTimeline conversion={conversion} />
          </div>
        ) : null}
      </div>
    </section>
  )
}
