"use client"

import { zodResolver } from "@hookform/resolvers/zod"
import { useQueryClient } from "@tanstack/react-query"
import { type ComponentProps, useCallback, useEffect, useMemo, useRef, useState } from "react"
import { useForm } from "react-hook-form"
import { MetadataEditor } from "@/components/forms/metadata-editor"
import { OnBehalfOf } from "@/components/forms/on-behalf-of"
import { Countdown } from "@/components/trade/countdown"
import { AmountField, AmountPreview, BalanceShare, MetadataRevalidation, ModeChoice, UnitMemory } from "@/components/trade/execute-fields"
import {
  EMPTY_FORM,
  type ExecuteFormValues,
  type ExecutionBody,
  checkedExecutionBody,
  executeFormSchema,
  labelledFieldMessage,
  paymentOf,
} from "@/components/trade/execute-model"
import { formFieldOf, needsFreshQuote } from "@/components/trade/outcome"
import { type PendingSubmission, pendingTrades } from "@/components/trade/pending-submission"
import { type Resumption, type Review, type ReviewChecks, ReviewDialog } from "@/components/trade/review-dialog"
import { rememberedUnit } from "@/components/trade/unit-memory"
import { Button } from "@/components/ui/button"
import { Card } from "@/components/ui/card"
import { IdChip } from "@/components/ui/id-chip"
import { formatPrice } from "@/lib/format"
import { executionSize } from "@/lib/limits"
import { executionAmounts, sameAmount } from "@/lib/money"
import { availableOf, preTradeVerdict } from "@/lib/pre-trade"
import { preTradeKeys, usePreTradeFactsQuery } from "@/lib/queries/limits"
import { useTickRate } from "@/lib/queries/market-data"
import { useBalancesQuery } from "@/lib/queries/profiles"
import { lookupExecutionSubmission, useExecuteQuoteMutation } from "@/lib/queries/executions"
import { quoteKeys } from "@/lib/queries/keys"
import { fetchQuotes } from "@/lib/queries/quotes"
import { type SubmissionState, useSubmission } from "@/lib/queries/submission"
import type { ApprovalRequest } from "@/lib/schemas/approvals"
import { type QuoteExecution, type Quote, quoteExecutionSchema } from "@/lib/schemas/records"

function reviewOf(body: ExecutionBody, quote: Quote, profileId: string, profileName: string, previous: Quote | null = null): Review {
  const amounts = executionAmounts({ side: quote.side, price: quote.price, base_amount: body.base_amount, quote_amount: body.quote_amount })
  const movedFrom = previous && !sameAmount(previous.price, quote.price) ? previous.price : null
  return { body, quote, amounts, profileId, profileName, movedFrom }
}

/** The pre-trade checks of the order under review: its size against the limits and thresholds, its payment against the balance. */
function useReviewChecks(review: Review | null): ReviewChecks | null {
  const facts = usePreTradeFactsQuery()
  const balances = useBalancesQuery(review?.profileId ?? null)
  if (!review) return null
  const payment = paymentOf(review.quote, review.amounts)
  return {
    verdict: preTradeVerdict("execution", executionSize(review.body, review.quote), facts.data),
    funds: { asset: payment.asset, needed: payment.amount, available: availableOf(payment.asset, balances.data) },
  }
}

/**
 * The review dialog with its pre-trade checks. The checks' facts and balances are polled,
 * so they are read here, not in the panel: a new answer re-renders the dialog, never the
 * form (whose inputs React rewrites on every render of the panel).
 */
function CheckedReviewDialog({ onConfirm, ...props }: Omit<ComponentProps<typeof ReviewDialog>, "checks" | "onConfirm"> & { onConfirm: (checks: ReviewChecks | null) => void }) {
  const checks = useReviewChecks(props.review)
  return <ReviewDialog {...props} checks={checks} onConfirm={() => onConfirm(checks)} />
}

/**
 * The execute form for one held quote, and its confirm step. One submission is one
 * ref_id (see lib/queries/submission), kept for double clicks and retries, and across a
 * reload of the confirm step (sessionStorage). A reload after the request left asks the
 * console what became of it; it is sent again only when the trader says so.
 */
export function ExecutePanel({
  profileId,
  profileName,
  quote,
  resume,
  onQuoteChange,
  onExecuted,
  onClose,
}: {
  profileId: string
  profileName: string
  quote: Quote
  resume: PendingSubmission | null
  onQuoteChange: (quote: Quote) => void
  /** The placed execution, or the approval request it became when a second person must approve it. */
  onExecuted: (record: QuoteExecution | ApprovalRequest, problem?: unknown) => void
  onClose: () => void
}) {
  const queryClient = useQueryClient()
  const { base_asset: baseAsset, quote_asset: quoteAsset } = quote
  const schema = useMemo(() => executeFormSchema({ base_asset: baseAsset, quote_asset: quoteAsset }), [baseAsset, quoteAsset])
  const form = useForm<ExecuteFormValues>({
    mode: "onChange",
    resolver: zodResolver(schema),
    // The unit is the one last used on this market.
    defaultValues: resume?.values ?? { ...EMPTY_FORM, mode: rememberedUnit(quote.market) },
  })
  const { register, control, handleSubmit, formState, setError, getValues, setFocus, setValue, trigger } = form

  // Opening the form puts the keyboard where the next keystroke goes: the amount. The amount,
  // the balance and the estimate scroll into view together, so the trader sees both sides of
  // the trade while typing (focus alone would stop at the field's bottom edge).
  const opened = useRef(false)
  const entry = useRef<HTMLDivElement>(null)
  useEffect(() => {
    if (opened.current || resume) return
    opened.current = true
    entry.current?.scrollIntoView({ block: "nearest" })
    setFocus("amount")
  }, [resume, setFocus])

  const [review, setReview] = useState<Review | null>(() => (resume ? reviewOf(resume.body, resume.quote, resume.profileId, profileName) : null))
  const [resumed, setResumed] = useState(resume !== null)
  const [fetchingQuote, setFetchingQuote] = useState(false)
  const [freshError, setFreshError] = useState<unknown>(null)
  const { mutateAsync } = useExecuteQuoteMutation()
  const forProfile = review?.profileId ?? profileId

  const onAnswer = (state: SubmissionState<ExecutionBody, QuoteExecution | ApprovalRequest>) => {
    // Used today changes with every order that was placed or now waits.
    void queryClient.invalidateQueries({ queryKey: preTradeKeys.all })
    if (state.kind !== "placed") return
    setReview(null)
    onExecuted(state.record, state.via === "existing" ? state.error : undefined)
  }
  const submission = useSubmission<ExecutionBody, QuoteExecution | ApprovalRequest, PendingSubmission, ExecuteFormValues>({
    // The reviewed quote travels beside the body: the console sizes the order by it, and an approval's limit price.
    send: (body) => mutateAsync({ profileId: forProfile, body, reviewed: review?.body === body ? review.quote : undefined }),
    lookup: (body, sentAt) => lookupExecutionSubmission(forProfile, body.ref_id, sentAt),
    existing: quoteExecutionSchema,
    persist: { store: pendingTrades, resume },
    // Rules about the body's fields show under the inputs they belong to, in the form's words.
    fieldErrors: { setError, fieldOf: formFieldOf, message: (field, rule) => labelledFieldMessage(field, rule, quote) },
    onAnswer,
  })
  const { refId, state, keep, showFieldRules } = submission

  const openReview = useCallback(
    (values: ExecuteFormValues, forQuote: Quote, previous: Quote | null = null) => {
      const draft = checkedExecutionBody(values, forQuote.id, refId)
      if (!draft.ok) {
        showFieldRules(draft.fields)
        return
      }
      setFreshError(null)
      setReview(reviewOf(draft.body, forQuote, profileId, profileName, previous))
      keep(draft.body, { profileId, quote: forQuote, values: getValues() })
    },
    [profileId, profileName, refId, keep, showFieldRules, getValues],
  )

  const confirm = (checks: ReviewChecks | null) => {
    if (!review || submission.sending || submission.checking) return
    // A refused body is not sent again, nor one the console will refuse.
    if (state.kind !== "unknown" && (refused || checks?.verdict.breach)) return
    // After an unknown outcome this is "Try again": the same body with the same ref_id.
    if (state.kind === "unknown") submission.retry()
    else submission.submit(review.body)
  }

  const cancel = () => {
    submission.drop()
    setReview(null)
    setResumed(false)
  }

  // Back to the ticket with the figures kept, the keyboard on the amount.
  const edit = () => {
    cancel()
    setTimeout(() => setFocus("amount", { shouldSelect: true }), 0)
  }

  const freshQuote = () => {
    if (!review) return
    const { market, side } = review.quote
    setFetchingQuote(true)
    setFreshError(null)
    queryClient
      .fetchQuery({ queryKey: quoteKeys.markets([market]), queryFn: ({ signal }) => fetchQuotes([market], signal), staleTime: 500 })
      .then((snapshot) => {
        const fresh = snapshot.items.find((q) => q.market === market && q.side === side && q.id !== review.quote.id)
        if (!fresh) {
          setFreshError(new Error(`The service has no new ${side} quote for ${market} yet; try again in a second.`))
          return
        }
        onQuoteChange(fresh)
        setResumed(false)
        openReview(getValues(), fresh, review.quote)
      })
      .catch((error: unknown) => setFreshError(error))
      .finally(() => setFetchingQuote(false))
  }

  // The answer shown in the dialog is the one about the body under review.
  const about = review && (state.kind === "refused" || state.kind === "unknown") && state.body === review.body ? state : null
  const refusedForQuote = about?.kind === "refused" && needsFreshQuote(about.error)
  const refused = about?.kind === "refused" && !refusedForQuote
  const resumption: Resumption =
    about?.kind === "unknown" && about.resumed ? "checking" : review && state.kind === "open" && state.notPlaced ? "not-placed" : null
  const word = quote.side === "BUY" ? "Buy" : "Sell"
  const tickRate = useTickRate(quote.market)
  return (
    <Card
      title={
        <span>
          {word} {quote.base_asset} · {quote.market}
        </span>
      }
      actions={
        <Button variant="ghost" size="sm" onClick={onClose}>
          Close
        </Button>
      }
    >
      <form onSubmit={(e) => void handleSubmit((values) => openReview(values, quote))(e)} noValidate aria-label={`${word} ${quote.base_asset}`} className="space-y-4" data-testid="execute-form">
        <p className="text-sm text-slate-700">
          Held price{" "}
          <span className="font-semibold tabular" data-testid="form-price" data-num="price" data-tick={tickRate}>
            {formatPrice(quote.price, { tick: tickRate })}
          </span>{" "}
          {quote.quote_asset} per {quote.base_asset} · expires in <Countdown expiresAt={quote.expires_at} /> ·{" "}
          <span className="text-slate-600">
            reference <IdChip value={refId} label="ref_id" testId="form-ref-id" />
          </span>
        </p>
        <ModeChoice register={register} quote={quote} />
        <div ref={entry} className="space-y-4" data-testid="amount-entry">
          <AmountField control={control} register={register} setValue={setValue} quote={quote} error={formState.errors.amount?.message} />
          <BalanceShare control={control} setValue={setValue} quote={quote} profileId={profileId} />
          {/* Room for both sides of the trade and the rounding note from the start: what follows does not move down as the estimate appears. */}
          <div className="min-h-21">
            <AmountPreview control={control} quote={quote} profileId={profileId} />
          </div>
        </div>
        <UnitMemory control={control} market={quote.market} />
        <MetadataEditor control={control} register={register} errors={formState.errors} />
        <MetadataRevalidation control={control} trigger={trigger} />
        <OnBehalfOf register={register} errors={formState.errors} />
        <div className="flex items-center gap-3">
          <Button type="submit" data-testid="review-button">
            Review
          </Button>
          <span className="text-sm text-slate-600">Nothing is executed until you confirm.</span>
        </div>
      </form>
      <CheckedReviewDialog
        review={review}
        error={freshError ?? about?.error ?? null}
        checkError={about?.kind === "unknown" ? about.checkError : undefined}
        busy={submission.sending}
        checking={submission.checking}
        asked={submission.asked}
        outcomeUnknown={about?.kind === "unknown"}
        resumption={resumption}
        needsFreshQuote={refusedForQuote}
        refused={refused}
        fetchingQuote={fetchingQuote}
        resumed={resumed}
        onCancel={cancel}
        onEdit={edit}
        onConfirm={confirm}
        onCheck={submission.check}
        onFreshQuote={freshQuote}
      />
    </Card>
  )
}
