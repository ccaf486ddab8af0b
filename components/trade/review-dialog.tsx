"use client"

import { type ReactNode, memo, useEffect, useRef, useState } from "react"
import { useExpired } from "@/components/trade/clock"
import { Countdown } from "@/components/trade/countdown"
import type { ExecutionBody } from "@/components/trade/execute-model"
import { Amount, Price } from "@/components/ui/amount"
import { Button } from "@/components/ui/button"
import { Dialog } from "@/components/ui/dialog"
import { IdChip } from "@/components/ui/id-chip"
import { ProblemAlert, describeError } from "@/components/ui/problem-alert"
import { PreTradeChecks, type ReviewChecks } from "@/components/forms/pre-trade-checks"
import { RetypeAmount, useRetype } from "@/components/forms/retype-amount"
import { formatPercent, formatPrice } from "@/lib/format"
import { type ExecutionAmounts, toDecimal } from "@/lib/money"
import { useTickRate } from "@/lib/queries/market-data"
import type { Quote } from "@/lib/schemas/records"

/** What the operator is about to confirm: one body, one ref_id, one held quote. */
export interface Review {
  body: ExecutionBody
  quote: Quote
  amounts: ExecutionAmounts
  profileId: string
  profileName: string
  /** The price of the review this one replaced (a fresh quote), when it differs: highlighted, and confirmed on purpose. */
  movedFrom: string | null
}

export type { ReviewChecks }

/** Where a submission resumed after a reload stands: asked about by itself, or said by the console to be not placed. */
export type Resumption = "checking" | "not-placed" | null

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

/** "+0.20 %": how far the price moved, in percent of the old one. */
function movement(from: string, to: string): string {
  const before = toDecimal(from)
  if (before.isZero()) return ""
  const change = toDecimal(to).sub(before).div(before).mul(100).toDecimalPlaces(2)
  return `${change.gte(0) ? "+" : "−"}${formatPercent(change.abs())} %`
}

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
  const tickRate = useTickRate(quote.market)
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
        <span data-testid="review-price" className={review.movedFrom ? "rounded bg-amber-100 px-1 font-semibold text-amber-950" : undefined}>
          <Price value={quote.price} tick={tickRate} unit={`${quote.quote_asset} per ${quote.base_asset}`} />
        </span>
        {review.movedFrom ? (
          <span className="block text-xs font-semibold text-amber-900" data-testid="review-price-moved">
            Moved since you reviewed it: was {formatPrice(review.movedFrom, { tick: tickRate })} {quote.quote_asset} ({movement(review.movedFrom, quote.price)})
          </span>
        ) : null}
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
          <IdChip value={value} label={label.toLowerCase()} full />
        </Row>
      ))}
      <Row label="Reference (ref_id)">
        <IdChip value={body.ref_id} label="ref_id" testId="review-ref-id" full />
      </Row>
      <Row label="Quote id">
        <IdChip value={quote.id} label="quote id" testId="review-quote-id" full />
      </Row>
      <Row label="Quote expires">
        <Countdown expiresAt={quote.expires_at} />
      </Row>
    </dl>
  )
})

type Focus = "confirm" | "edit" | "accept" | "fresh" | "check" | "retype" | null

/**
 * The footer decides on its own when the quote has expired, so only it re-renders at that
 * moment. Confirm is off while the quote is expired, a request is in flight, after a
 * definite refusal, while the order breaks a limit, while a moved price is not accepted and
 * while a large amount is not typed again. It reads "Submit for approval" when the order
 * waits for a second person. After an unknown outcome it becomes "Place it now" with the
 * same body, beside "Check whether it was placed", which only asks; after a reload it is
 * offered only once the console has said the order was not placed.
 */
function ReviewActions({
  expiresAt,
  busy,
  checking,
  outcomeUnknown,
  resumption,
  needsFreshQuote,
  refused,
  breach,
  approval,
  priceToAccept,
  retypePending,
  fetchingQuote,
  onCancel,
  onEdit,
  onConfirm,
  onCheck,
  onFreshQuote,
  onAcceptPrice,
}: {
  expiresAt: string
  busy: boolean
  checking: boolean
  outcomeUnknown: boolean
  resumption: Resumption
  needsFreshQuote: boolean
  refused: boolean
  breach: boolean
  approval: boolean
  priceToAccept: boolean
  retypePending: boolean
  fetchingQuote: boolean
  onCancel: () => void
  onEdit: () => void
  onConfirm: () => void
  onCheck: () => void
  onFreshQuote: () => void
  onAcceptPrice: () => void
}) {
  const expired = useExpired(expiresAt)
  // An unknown outcome is resolved by sending the same body again, expired or not: the
  // ref_id makes the service answer with the record if it was placed.
  const blocked = !outcomeUnknown && (expired || needsFreshQuote)
  const checkingResumed = resumption === "checking"
  const stopped = !outcomeUnknown && (refused || breach)
  const off = blocked || stopped || checkingResumed || (!outcomeUnknown && (priceToAccept || retypePending))
  const target: Focus = checkingResumed
    ? null
    : outcomeUnknown
      ? "check"
      : stopped
        ? "edit"
        : blocked
          ? "fresh"
          : priceToAccept
            ? "accept"
            : retypePending
              ? "retype"
              : "confirm"
  const confirmRef = useRef<HTMLButtonElement>(null)
  const editRef = useRef<HTMLButtonElement>(null)
  const acceptRef = useRef<HTMLButtonElement>(null)
  const freshRef = useRef<HTMLButtonElement>(null)
  const checkRef = useRef<HTMLButtonElement>(null)
  const was = useRef<Focus>(target)
  // The keyboard follows what the trader must do next: after a refusal to "Edit order", after
  // a price move to "Accept the new price", after a fresh quote back to Confirm. Only a change
  // moves it (the dialog puts it on the first target when it opens).
  useEffect(() => {
    if (was.current === target) return
    was.current = target
    const refs = { confirm: confirmRef, edit: editRef, accept: acceptRef, fresh: freshRef, check: checkRef }
    if (target === "retype") document.querySelector<HTMLElement>("[data-testid=retype-amount]")?.focus()
    else if (target) refs[target].current?.focus()
  })
  const label = outcomeUnknown || resumption === "not-placed" ? "Place it now" : approval ? "Submit for approval" : "Confirm"
  const auto = (focus: Focus) => (target === focus ? { "data-autofocus": true } : {})
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
      {stopped ? (
        <Button ref={editRef} variant="secondary" onClick={onEdit} data-testid="edit-order" {...auto("edit")}>
          Edit order
        </Button>
      ) : null}
      {outcomeUnknown && !checkingResumed ? (
        <Button ref={checkRef} variant="secondary" onClick={onCheck} busy={checking} held={busy} data-testid="check-button" {...auto("check")}>
          Check whether it was placed
        </Button>
      ) : null}
      {blocked ? (
        <Button ref={freshRef} variant="secondary" onClick={onFreshQuote} busy={fetchingQuote} data-testid="fresh-quote" {...auto("fresh")}>
          Get a fresh quote
        </Button>
      ) : null}
      {priceToAccept && !blocked && !stopped && !outcomeUnknown ? (
        <Button ref={acceptRef} variant="secondary" onClick={onAcceptPrice} data-testid="accept-price" {...auto("accept")}>
          Accept the new price
        </Button>
      ) : null}
      {checkingResumed ? null : (
        <Button ref={confirmRef} onClick={onConfirm} disabled={off} busy={busy} held={checking} data-testid="confirm-button" {...auto("confirm")}>
          {label}
        </Button>
      )}
    </>
  )
}

export function ReviewDialog({
  review,
  checks,
  error,
  checkError,
  busy,
  checking,
  asked,
  outcomeUnknown,
  resumption,
  needsFreshQuote,
  refused,
  fetchingQuote,
  resumed,
  onCancel,
  onEdit,
  onConfirm,
  onCheck,
  onFreshQuote,
}: {
  review: Review | null
  checks: ReviewChecks | null
  error: unknown
  /** Why asking what became of an unknown outcome could not tell. */
  checkError: unknown
  busy: boolean
  checking: boolean
  /** How many times a resumed submission has been asked about again. */
  asked: number
  outcomeUnknown: boolean
  resumption: Resumption
  needsFreshQuote: boolean
  /** The service or the console refused this body: it is not sent again. */
  refused: boolean
  fetchingQuote: boolean
  resumed: boolean
  onCancel: () => void
  onEdit: () => void
  onConfirm: () => void
  onCheck: () => void
  onFreshQuote: () => void
}) {
  // What the trader did in this review: accepted its moved price, typed its amount again.
  const reviewKey = review ? `${review.body.ref_id}:${review.quote.id}` : ""
  const [accepted, setAccepted] = useState("")
  const entered = review ? (review.body.base_amount !== undefined ? { amount: review.amounts.base_amount, asset: review.quote.base_asset } : { amount: review.amounts.quote_amount, asset: review.quote.quote_asset }) : null
  const needsRetype = Boolean(checks?.verdict.retype) && !outcomeUnknown && resumption === null
  const retype = useRetype(reviewKey, needsRetype, entered?.amount ?? null)
  const retypePending = retype.pending
  const priceToAccept = Boolean(review?.movedFrom) && accepted !== reviewKey
  const breach = Boolean(checks?.verdict.breach)
  const title = review
    ? resumption === "checking"
      ? "Checking whether it was placed…"
      : resumption === "not-placed"
        ? "Not placed"
        : `Confirm: ${SIDE_TEXT[review.quote.side].toLowerCase()} ${review.quote.base_asset}`
    : "Confirm"
  return (
    <Dialog
      open={review !== null}
      onClose={() => {
        if (!busy && !checking) onCancel()
      }}
      title={title}
      footer={
        review ? (
          <ReviewActions
            expiresAt={review.quote.expires_at}
            busy={busy}
            checking={checking}
            outcomeUnknown={outcomeUnknown}
            resumption={resumption}
            needsFreshQuote={needsFreshQuote}
            refused={refused}
            breach={breach}
            approval={Boolean(checks?.verdict.needsApproval)}
            priceToAccept={priceToAccept}
            retypePending={retypePending}
            fetchingQuote={fetchingQuote}
            onCancel={onCancel}
            onEdit={onEdit}
            onConfirm={onConfirm}
            onCheck={onCheck}
            onFreshQuote={onFreshQuote}
            onAcceptPrice={() => setAccepted(reviewKey)}
          />
        ) : null
      }
    >
      {review ? (
        <div className="space-y-3" data-testid="review">
          {resumption === "checking" ? (
            <p role="status" className="rounded-md bg-blue-50 px-3 py-2 text-sm text-blue-900" data-testid="review-resumed">
              This order was sent before the page reloaded and its answer was never seen. The console is being asked what became of it, again every few
              seconds{asked > 0 ? ` (asked ${asked + 1} times)` : ""}; nothing is sent again.
              {checkError ? <span className="mt-1 block text-xs" data-testid="check-problem">Last answer: {describeError(checkError).detail ?? describeError(checkError).title}</span> : null}
            </p>
          ) : resumption === "not-placed" ? (
            <p className="rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-950" data-testid="review-resumed">
              <strong>The console says this order was not placed.</strong> &ldquo;Place it now&rdquo; sends it with the same figures and reference.
            </p>
          ) : resumed ? (
            <p className="rounded-md bg-blue-50 px-3 py-2 text-sm text-blue-900" data-testid="review-resumed">
              Resumed from before the page reloaded: same figures, same reference.
            </p>
          ) : null}
          {checks ? (
            <PreTradeChecks
              verdict={checks.verdict}
              funds={checks.funds}
              other={review.body.base_amount !== undefined ? undefined : { amount: review.amounts.base_amount, asset: review.quote.base_asset }}
              testId="review-checks"
            />
          ) : null}
          <ReviewDetails review={review} />
          {needsRetype && entered && !breach && !refused ? (
            <RetypeAmount
              amount={entered.amount}
              asset={entered.asset}
              value={retype.value}
              onChange={retype.set}
              onEnter={() => {
                if (!priceToAccept && !breach && !refused) onConfirm()
              }}
            />
          ) : null}
          {error ? <ProblemAlert error={error} /> : null}
          {busy ? <SlowCall /> : null}
          {checking && resumption !== "checking" ? (
            <p role="status" className="text-sm text-slate-700">
              Asking the console what became of reference {review.body.ref_id}…
            </p>
          ) : outcomeUnknown && !busy && resumption !== "checking" ? (
            <p className="text-sm text-slate-700" data-testid="unknown-outcome-note">
              {checkError ? <span data-testid="check-problem">{describeError(checkError).detail ?? describeError(checkError).title} </span> : null}
              The console does not know yet whether reference {review.body.ref_id} was placed. &ldquo;Check whether it was placed&rdquo; only asks.
              &ldquo;Place it now&rdquo; sends the same order with the same reference: if the first one got through, you get that execution and nothing
              more; if it did not, it is placed now, for the first time.
            </p>
          ) : null}
        </div>
      ) : null}
    </Dialog>
  )
}
