"use client"

import { PreTradeChecks, type ReviewChecks } from "@/components/forms/pre-trade-checks"
import { CONVERSION_DECIMALS } from "@/lib/format"
import { Amount } from "@/components/ui/amount"
import { Button } from "@/components/ui/button"
import { Dialog } from "@/components/ui/dialog"
import type { ConversionBody } from "./form-model"

/** The confirm step: every field of the body that will be sent, its ref_id included. */
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
          <Button busy={sending} disabled={Boolean(checks?.verdict.breach)} onClick={() => review && !checks?.verdict.breach && onConfirm(review)} data-testid="confirm-button">
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
          <dd>
            {profileName(review.profile_id) ?? ""} <code className="font-mono text-xs">{review.profile_id}</code>
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
          <dd>{review.identity_id ?? "—"}</dd>
          <dt className="font-medium text-slate-600">Account id</dt>
          <dd>{review.account_id ?? "—"}</dd>
          <dt className="font-medium text-slate-600">Recipient profile</dt>
          <dd>{review.recipient_profile_id ? `${profileName(review.recipient_profile_id) ?? ""} ${review.recipient_profile_id}` : "—"}</dd>
          <dt className="font-medium text-slate-600">ref_id</dt>
          <dd>
            <code className="font-mono text-xs" data-testid="review-ref-id">
              {review.ref_id}
            </code>
          </dd>
        </dl>
      ) : null}
      {sending ? (
        <p role="status" className="mt-3 text-sm text-slate-700">
          Placing the conversion…
        </p>
      ) : null}
    </Dialog>
  )
}
