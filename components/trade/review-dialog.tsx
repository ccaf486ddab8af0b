"use client"

import { type ReactNode, memo, useEffect, useRef, useState } from "react"
import { useExpired } from "@/components/trade/clock"
import { Countdown } from "@/components/trade/countdown"
import type { ExecutionBody } from "@/components/trade/execute-model"
import { Amount, Price } from "@/components/ui/amount"
import { Button } from "@/components/ui/button"
import { CopyButton } from "@/components/ui/copy-button"
import { Dialog } from "@/components/ui/dialog"
import { ProblemAlert, describeError } from "@/components/ui/problem-alert"
import type { ExecutionAmounts } from "@/lib/money"
import type { Quote } from "@/lib/schemas/records"

/** What the operator is about to confirm: one body, one ref_id, one held quote. */
export interface Review {
  body: ExecutionBody
  quote: Quote
  amounts: ExecutionAmounts
  profileId: string
  profileName: string
}

function Row({ label, children, testId }: { label: string; children: ReactNode; testId?: string }) {
  return (
    <div className="grid grid-cols-[9rem_1fr] gap-3 py-1.5">
      <dt className="text-sm font-medium text-slate-600">{label}</dt>
      <dd className="min-w-0 text-sm text-slate-900" data-testid={testId}>
        {children}
      </dd>
    </div>
  )
}

const SIDE_TEXT = { BUY: "Buy", SELL: "Sell" } as const

/** Shown from the second second of a send: how long it has waited, and what happens if no answer comes. */
function SlowCall() {
  const [started] = useState(() => Date.now())
  const [seconds, setSeconds] = useState(0)
  useEffect(() => {
    const timer = setInterval(() => setSeconds(Math.floor((Date.now() - started) / 1000)), 1000)
    return () => clearInterval(timer)
  }, [started])
  if (seconds < 2) return null
  return (
    <p className="text-sm text-slate-700" data-testid="slow-call">
      Waiting for the service: <span className="tabular font-semibold">{seconds} s</span>. If it does not answer in time, the console stops waiting and
      says so here; you can then check whether it was placed, or send the same order again. Nothing is sent again without your click.
    </p>
  )
}

/** The figures under review. Memoized: the dialog's countdown ticks on its own. */
const ReviewDetails = memo(function ReviewDetails({ review }: { review: Review }) {
  const { body, quote, amounts } = review
  const entered = body.base_amount !== undefined ? "base" : "quote"
  const metadata = Object.entries(body.metadata ?? {})
  const onBehalf = (
    [
      ["Identity id", body.identity_id],
      ["Account id", body.account_id],
      ["Recipient profile id", body.recipient_profile_id],
    ] as const
  ).filter(([, v]) => v !== undefined)
  return (
    <dl className="divide-y divide-slate-100">
      <Row label="Side" testId="review-side">
        {SIDE_TEXT[quote.side]} {quote.base_asset} ({quote.side})
      </Row>
      <Row label="Market" testId="review-market">
        {quote.market}
      </Row>
      <Row label="Price">
        <span data-testid="review-price">
          <Price value={quote.price} unit={`${quote.quote_asset} per ${quote.base_asset}`} />
        </span>
      </Row>
      <Row label={quote.base_asset}>
        <span data-testid="review-base-amount">
          <Amount value={amounts.base_amount} asset={quote.base_asset} />
        </span>{" "}
        <span className="text-xs text-slate-600">{entered === "base" ? "(you entered)" : quote.side === "BUY" ? "(rounded down)" : "(rounded up)"}</span>
      </Row>
      <Row label={quote.quote_asset}>
        <span data-testid="review-quote-amount">
          <Amount value={amounts.quote_amount} asset={quote.quote_asset} />
        </span>{" "}
        <span className="text-xs text-slate-600">{entered === "quote" ? "(you entered)" : quote.side === "BUY" ? "(rounded up)" : "(rounded down)"}</span>
      </Row>
      <Row label="Profile" testId="review-profile">
        {review.profileName}
      </Row>
      <Row label="Metadata">
        {metadata.length === 0 ? (
          <span className="text-slate-500">None</span>
        ) : (
          <ul data-testid="review-metadata">
            {metadata.map(([k, v]) => (
              <li key={k} className="break-all font-mono text-xs">
                {k}: {v}
              </li>
            ))}
          </ul>
        )}
      </Row>
      {onBehalf.map(([label, value]) => (
        <Row key={label} label={label}>
          <code className="break-all font-mono text-xs">{value}</code>
        </Row>
      ))}
      <Row label="Reference (ref_id)">
        <code className="break-all font-mono text-xs" data-testid="review-ref-id">
          {body.ref_id}
        </code>{" "}
        <CopyButton value={body.ref_id} label="ref_id" />
      </Row>
      <Row label="Quote id">
        <code className="break-all font-mono text-xs" data-testid="review-quote-id">
          {quote.id}
        </code>
      </Row>
      <Row label="Quote expires">
        <Countdown expiresAt={quote.expires_at} />
      </Row>
    </dl>
  )
})

/**
 * The footer decides on its own when the quote has expired, so only it re-renders at that
 * moment. Confirm is off while the quote is expired or a request is in flight; after an
 * answer that left the outcome unknown, it becomes "Place it now" with the same body,
 * beside "Check whether it was placed", which only asks.
 */
function ReviewActions({
  expiresAt,
  busy,
  checking,
  outcomeUnknown,
  needsFreshQuote,
  fetchingQuote,
  onCancel,
  onConfirm,
  onCheck,
  onFreshQuote,
}: {
  expiresAt: string
  busy: boolean
  checking: boolean
  outcomeUnknown: boolean
  needsFreshQuote: boolean
  fetchingQuote: boolean
  onCancel: () => void
  onConfirm: () => void
  onCheck: () => void
  onFreshQuote: () => void
}) {
  const expired = useExpired(expiresAt)
  // An unknown outcome is resolved by sending the same body again, expired or not: the
  // ref_id makes the service answer with the record if it was placed.
  const blocked = !outcomeUnknown && (expired || needsFreshQuote)
  const confirmRef = useRef<HTMLButtonElement>(null)
  const freshRef = useRef<HTMLButtonElement>(null)
  const wasBlocked = useRef(blocked)
  // The button that had the focus goes away (or is disabled) when `blocked` flips: hand the
  // focus to the one that takes its place, so a keyboard user is not dropped on the body.
  useEffect(() => {
    if (wasBlocked.current === blocked) return
    wasBlocked.current = blocked
    const active = document.activeElement
    const lost = !active || active === document.body || (active instanceof HTMLButtonElement && active.disabled)
    if (lost) (blocked ? freshRef : confirmRef).current?.focus()
  }, [blocked])
  return (
    <>
      {blocked ? (
        <p className="mr-auto self-center text-sm font-medium text-red-700" data-testid="review-expired">
          {expired ? "This quote has expired." : "This quote can no longer be executed."}
        </p>
      ) : null}
      <Button variant="secondary" onClick={onCancel} held={busy || checking}>
        Cancel
      </Button>
      {outcomeUnknown ? (
        <Button variant="secondary" onClick={onCheck} busy={checking} held={busy} data-testid="check-button" data-autofocus>
          Check whether it was placed
        </Button>
      ) : null}
      {blocked ? (
        <Button ref={freshRef} variant="secondary" onClick={onFreshQuote} busy={fetchingQuote} data-testid="fresh-quote">
          Get a fresh quote
        </Button>
      ) : null}
      {/* Enter right after opening confirms; after an unknown outcome the keyboard starts on "Check", which only asks. */}
      <Button
        ref={confirmRef}
        onClick={onConfirm}
        disabled={blocked}
        busy={busy}
        held={checking}
        data-testid="confirm-button"
        {...(outcomeUnknown ? {} : { "data-autofocus": true })}
      >
        {outcomeUnknown ? "Place it now" : "Confirm"}
      </Button>
    </>
  )
}

export function ReviewDialog({
  review,
  error,
  checkError,
  busy,
  checking,
  outcomeUnknown,
  needsFreshQuote,
  fetchingQuote,
  resumed,
  onCancel,
  onConfirm,
  onCheck,
  onFreshQuote,
}: {
  review: Review | null
  error: unknown
  /** Why asking what became of an unknown outcome could not tell. */
  checkError: unknown
  busy: boolean
  checking: boolean
  outcomeUnknown: boolean
  needsFreshQuote: boolean
  fetchingQuote: boolean
  resumed: boolean
  onCancel: () => void
  onConfirm: () => void
  onCheck: () => void
  onFreshQuote: () => void
}) {
  return (
    <Dialog
      open={review !== null}
      onClose={() => {
        if (!busy && !checking) onCancel()
      }}
      title={review ? `Confirm: ${SIDE_TEXT[review.quote.side].toLowerCase()} ${review.quote.base_asset}` : "Confirm"}
      footer={
        review ? (
          <ReviewActions
            expiresAt={review.quote.expires_at}
            busy={busy}
            checking={checking}
            outcomeUnknown={outcomeUnknown}
            needsFreshQuote={needsFreshQuote}
            fetchingQuote={fetchingQuote}
            onCancel={onCancel}
            onConfirm={onConfirm}
            onCheck={onCheck}
            onFreshQuote={onFreshQuote}
          />
        ) : null
      }
    >
      {review ? (
        <div className="space-y-3" data-testid="review">
          {resumed ? (
            <p className="rounded-md bg-blue-50 px-3 py-2 text-sm text-blue-900" data-testid="review-resumed">
              {outcomeUnknown
                ? "This order was sent before the page reloaded and its answer was never seen. The console is asked what became of it; nothing is sent again unless you choose “Place it now”."
                : "Resumed from before the page reloaded: same figures, same reference."}
            </p>
          ) : null}
          <ReviewDetails review={review} />
          {error ? <ProblemAlert error={error} /> : null}
          {busy ? <SlowCall /> : null}
          {checking ? (
            <p role="status" className="text-sm text-slate-700">
              Asking the console what became of reference {review.body.ref_id}…
            </p>
          ) : outcomeUnknown && !busy ? (
            <p className="text-sm text-slate-700" data-testid="unknown-outcome-note">
              {checkError ? <span data-testid="check-problem">{describeError(checkError).detail ?? describeError(checkError).title} </span> : null}
              <strong>Not placed yet, as far as the console can tell: place it now?</strong> It may also still be on its way. &ldquo;Check whether it was
              placed&rdquo; only asks. &ldquo;Place it now&rdquo; sends the same order with the same reference: if the first one got through, you get that
              execution and nothing more; if it did not, it is placed now, for the first time.
            </p>
          ) : null}
        </div>
      ) : null}
    </Dialog>
  )
}
