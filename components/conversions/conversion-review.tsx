"use client"

import { PreTradeChecks, type ReviewChecks } from "@/components/forms/pre-trade-checks"
import { RetypeAmount, useRetype } from "@/components/forms/retype-amount"
import { CONVERSION_DECIMALS } from "@/lib/format"
import { Amount } from "@/components/ui/amount"
import { Button } from "@/components/ui/button"
import { Dialog } from "@/components/ui/dialog"
import { IdChip } from "@/components/ui/id-chip"
import type { ConversionBody } from "./form-model"

/**
 * The confirm step: every field of the body that will be sent, its ref_id included. Confirm
 * is off over a limit, and for a large amount (policy `retype_amount_over`) until it is
 * typed again, as on the trade ticket's review (components/forms/retype-amount).
 */
export function ConversionReview({
  review,
  sending,
  notPlacedYet = false,
  checks,
  profileName,
  onBack,
  onConfirm,
}: {
  review: ConversionBody | null
  sending: boolean
  /** Sent before a reload, and not placed as far as the console can tell: offered again with the same ref_id. */
  notPlacedYet?: boolean
  /** The pre-trade checks (size against the limits and threshold, amount against the balance); Confirm is off over a limit. */
  checks: ReviewChecks | null
  profileName: (id: string | undefined) => string | undefined
  onBack: () => void
  onConfirm: (body: ConversionBody) => void
}) {
  const breach = Boolean(checks?.verdict.breach)
  const retype = useRetype(review?.ref_id ?? "", Boolean(checks?.verdict.retype) && !notPlacedYet, review?.amount ?? null)
  const confirm = () => {
    if (review && !breach && !retype.pending) onConfirm(review)
  }
  return (
    <Dialog
      open={review !== null}
      onClose={() => {
        if (!sending) onBack()
      }}
      title="Confirm the conversion"
      footer={
        <>
          <Button variant="secondary" held={sending} onClick={onBack}>
            {notPlacedYet ? "Discard it" : "Back"}
          </Button>
          {/* The review opens on Confirm, as the trade desk's does (the ids' copy buttons come first in the page's order); on the amount field when it must be typed again. */}
          <Button busy={sending} disabled={breach || retype.pending} onClick={confirm} data-testid="confirm-button" {...(breach || retype.pending ? {} : { "data-autofocus": true })}>
            {notPlacedYet ? "Place it now" : checks?.verdict.needsApproval ? "Submit for approval" : "Confirm conversion"}
          </Button>
        </>
      }
    >
      {notPlacedYet && !sending ? (
        <p className="mb-3 rounded-md bg-blue-50 px-3 py-2 text-sm text-blue-900" data-testid="not-placed-note">
          <strong>Not placed yet, as far as the console can tell: place it now?</strong> This conversion was sent before the page reloaded and its answer was
          never seen; the console has nothing under its ref_id. Nothing is sent unless you choose &ldquo;Place it now&rdquo;, which sends the same conversion with the
          same ref_id.
        </p>
      ) : null}
      {review && checks ? <PreTradeChecks verdict={checks.verdict} funds={checks.funds} testId="review-checks" /> : null}
      {review ? (
        <dl className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-2 text-sm" data-testid="review">
          <dt className="font-medium text-slate-600">Profile</dt>
          <dd className="flex min-w-0 flex-wrap items-center gap-2">
            {profileName(review.profile_id) ?? ""} <IdChip value={review.profile_id} label="profile id" full />
          </dd>
          <dt className="font-medium text-slate-600">Convert</dt>
          <dd data-testid="review-amount">
            <Amount value={review.amount} asset={review.source_asset} places={CONVERSION_DECIMALS} />
          </dd>
          <dt className="font-medium text-slate-600">Into</dt>
          <dd>
            <Amount value={review.amount} asset={review.target_asset} places={CONVERSION_DECIMALS} /> (1:1)
          </dd>
          <dt className="font-medium text-slate-600">Metadata</dt>
          <dd>
            {review.metadata ? (
              <ul>
                {Object.entries(review.metadata).map(([key, value]) => (
                  <li key={key}>
                    <span className="font-medium">{key}</span>: {value}
                  </li>
                ))}
              </ul>
            ) : (
              "none"
            )}
          </dd>
          <dt className="font-medium text-slate-600">Identity id</dt>
          <dd className="min-w-0">
            <IdChip value={review.identity_id} label="identity id" full />
          </dd>
          <dt className="font-medium text-slate-600">Account id</dt>
          <dd className="min-w-0">
            <IdChip value={review.account_id} label="account id" full />
          </dd>
          <dt className="font-medium text-slate-600">Recipient profile</dt>
          <dd className="flex min-w-0 flex-wrap items-center gap-2">
            {review.recipient_profile_id ? profileName(review.recipient_profile_id) : null} <IdChip value={review.recipient_profile_id} label="recipient profile id" full />
          </dd>
          <dt className="font-medium text-slate-600">ref_id</dt>
          <dd className="min-w-0">
            <IdChip value={review.ref_id} label="ref_id" testId="review-ref-id" full />
          </dd>
        </dl>
      ) : null}
      {review && checks?.verdict.retype && !notPlacedYet && !breach ? (
        <div className="mt-3">
          <RetypeAmount amount={review.amount} asset={review.source_asset} value={retype.value} onChange={retype.set} onEnter={confirm} />
        </div>
      ) : null}
      {sending ? (
        <p role="status" className="mt-3 text-sm text-slate-700">
          Placing the conversion…
        </p>
      ) : null}
    </Dialog>
  )
}
