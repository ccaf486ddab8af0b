"use client"

import { zodResolver } from "@hookform/resolvers/zod"
import { useQueryClient } from "@tanstack/react-query"
import { memo, useCallback, useEffect, useMemo, useRef, useState } from "react"
import { type Control, type UseFormRegister, type UseFormTrigger, useForm, useWatch } from "react-hook-form"
import { MetadataEditor } from "@/components/forms/metadata-editor"
import { OnBehalfOf } from "@/components/forms/on-behalf-of"
import { Countdown } from "@/components/trade/countdown"
import {
  type AmountMode,
  EMPTY_FORM,
  type ExecuteFormValues,
  type ExecutionBody,
  amountLabel,
  checkedExecutionBody,
  estimateAmounts,
  executeFormSchema,
  labelledFieldMessage,
  paymentOf,
  sameBody,
  shortfallOf,
} from "@/components/trade/execute-model"
import { existingExecution, formFieldOf, needsFreshQuote, outcomeOf } from "@/components/trade/outcome"
import { type PendingSubmission, clearPending, savePending } from "@/components/trade/pending-submission"
import { type Review, ReviewDialog } from "@/components/trade/review-dialog"
import { Alert } from "@/components/ui/alert"
import { Amount } from "@/components/ui/amount"
import { Button } from "@/components/ui/button"
import { Card } from "@/components/ui/card"
import { Field, Input } from "@/components/ui/field"
import { executionAmounts, formatAmount } from "@/lib/money"
import { ApiProblemError } from "@/lib/queries/api"
import { useExecuteQuoteMutation } from "@/lib/queries/executions"
import { quoteKeys } from "@/lib/queries/keys"
import { useBalancesQuery } from "@/lib/queries/profiles"
import { fetchQuotes } from "@/lib/queries/quotes"
import type { QuoteExecution, Quote } from "@/lib/schemas/records"

function newRefId(): string {
  return crypto.randomUUID()
}

function sessionStore(): Storage | null {
  try {
    return typeof window === "undefined" ? null : window.sessionStorage
  } catch {
    return null
  }
}

/**
 * Metadata rules span rows (at most 6 pairs, distinct keys): any change to a row checks
 * them all again, so the list's own message appears and clears as you type.
 */
function MetadataRevalidation({ control, trigger }: { control: Control<ExecuteFormValues>; trigger: UseFormTrigger<ExecuteFormValues> }) {
  const rows = useWatch({ control, name: "metadata" })
  const first = useRef(true)
  useEffect(() => {
    if (first.current) {
      first.current = false
      return
    }
    void trigger("metadata")
  }, [rows, trigger])
  return null
}

/** The estimate of the other amount, and the shortfall warning: they re-render as the amount is typed, the form does not. */
const AmountPreview = memo(function AmountPreview({
  control,
  quote,
  profileId,
}: {
  control: Control<ExecuteFormValues>
  quote: Quote
  profileId: string
}) {
  const [mode, amount] = useWatch({ control, name: ["mode", "amount"] })
  const balances = useBalancesQuery(profileId)
  const amounts = estimateAmounts(quote, mode, amount)
  if (!amounts) {
    return (
      <p className="text-sm text-slate-600" data-testid="estimate">
        Enter an amount to see both sides of the trade.
      </p>
    )
  }
  const payment = paymentOf(quote, amounts)
  const shortfall = balances.data ? shortfallOf(payment, balances.data) : null
  const buying = quote.side === "BUY"
  return (
    <div className="space-y-2">
      <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm" data-testid="estimate" aria-live="polite">
        <dt className="text-slate-600">{buying ? "You pay" : "You sell"}</dt>
        <dd data-testid="estimate-pay">
          <Amount value={payment.amount} asset={payment.asset} />
        </dd>
        <dt className="text-slate-600">You receive</dt>
        <dd data-testid="estimate-receive">
          {buying ? <Amount value={amounts.base_amount} asset={quote.base_asset} /> : <Amount value={amounts.quote_amount} asset={quote.quote_asset} />}
        </dd>
      </dl>
      <p className="text-xs text-slate-600">
        {mode === "crypto"
          ? `The ${quote.quote_asset} amount is rounded ${buying ? "up" : "down"} to 2 decimals, as the service computes it.`
          : `The ${quote.base_asset} amount is rounded ${buying ? "down" : "up"} to 8 decimals, as the service computes it.`}
      </p>
      {shortfall ? (
        <Alert tone="warning" title="Insufficient funds" className="mt-2">
          <span data-testid="shortfall">
            This needs {formatAmount(shortfall.needed)} {shortfall.asset}; the profile has {formatAmount(shortfall.available)} {shortfall.asset} available. The
            service will refuse it.
          </span>
        </Alert>
      ) : null}
    </div>
  )
})

function ModeChoice({ register, quote }: { register: UseFormRegister<ExecuteFormValues>; quote: Quote }) {
  const options: { value: AmountMode; label: string }[] = [
    { value: "crypto", label: `${quote.base_asset} (crypto: base_amount, up to 8 decimals)` },
    { value: "fiat", label: `${quote.quote_asset} (fiat: quote_amount, up to 2 decimals)` },
  ]
  return (
    <fieldset>
      <legend className="text-sm font-medium text-slate-800">Enter the amount in</legend>
      <div className="mt-1 flex flex-wrap gap-x-6 gap-y-1">
        {options.map((o) => (
          <label key={o.value} className="inline-flex items-center gap-2 text-sm">
            <input type="radio" value={o.value} data-testid={`mode-${o.value}`} {...register("mode", { deps: ["amount"] })} />
            {o.label}
          </label>
        ))}
      </div>
    </fieldset>
  )
}

function AmountField({
  control,
  register,
  quote,
  error,
}: {
  control: Control<ExecuteFormValues>
  register: UseFormRegister<ExecuteFormValues>
  quote: Quote
  error: string | undefined
}) {
  const mode = useWatch({ control, name: "mode" })
  return (
    <Field label={amountLabel(mode, quote)} error={error} hint={mode === "crypto" ? "More than 0, at most 8 decimals." : "More than 0, at most 2 decimals."}>
      {(a11y) => <Input {...a11y} inputMode="decimal" autoComplete="off" spellCheck={false} data-testid="amount" {...register("amount")} />}
    </Field>
  )
}

/**
 * The execute form for one held quote, and its confirm step. One submission is one
 * ref_id, generated when the form opens and kept for double clicks, retries and a reload
 * of the confirm step (sessionStorage). A body that changes after a definite refusal
 * gets a new ref_id: the console keeps each ref_id to one request.
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
  onExecuted: (record: QuoteExecution, problem?: unknown) => void
  onClose: () => void
}) {
  const queryClient = useQueryClient()
  const [refId, setRefId] = useState<string>(() => resume?.refId ?? newRefId())
  const { base_asset: baseAsset, quote_asset: quoteAsset } = quote
  const schema = useMemo(() => executeFormSchema({ base_asset: baseAsset, quote_asset: quoteAsset }), [baseAsset, quoteAsset])
  const form = useForm<ExecuteFormValues>({
    mode: "onChange",
    resolver: zodResolver(schema),
    defaultValues: resume?.values ?? EMPTY_FORM,
  })
  const { register, control, handleSubmit, formState, setError, getValues, setFocus, trigger } = form

  // Opening the form puts the keyboard where the next keystroke goes: the amount.
  const opened = useRef(false)
  useEffect(() => {
    if (opened.current || resume) return
    opened.current = true
    setFocus("amount")
  }, [resume, setFocus])

  const [review, setReview] = useState<Review | null>(() =>
    resume
      ? {
          body: resume.body,
          quote: resume.quote,
          amounts: executionAmounts({ side: resume.quote.side, price: resume.quote.price, base_amount: resume.body.base_amount, quote_amount: resume.body.quote_amount }),
          profileId: resume.profileId,
          profileName,
        }
      : null,
  )
  const [resumed, setResumed] = useState(resume !== null)
  const [outcomeUnknown, setOutcomeUnknown] = useState(resume?.sent ?? false)
  const [freshNeeded, setFreshNeeded] = useState(false)
  const [fetchingQuote, setFetchingQuote] = useState(false)
  const [freshError, setFreshError] = useState<unknown>(null)
  // The last body sent with `refId`, and whether the service definitely refused it.
  const lastSent = useRef<{ body: ExecutionBody; refused: boolean } | null>(resume?.sent ? { body: resume.body, refused: false } : null)
  const inFlight = useRef(false)
  const { mutateAsync } = useExecuteQuoteMutation(review?.profileId ?? profileId)
  // The request's own state, kept here rather than read from the mutation observer: the
  // answer must reach this form even when it arrives for a call made before a remount.
  const [sending, setSending] = useState(false)
  const [sendError, setSendError] = useState<unknown>(null)

  /** The ref_id for `body`: the current one, unless it was spent on a different body the service refused. */
  const refIdFor = useCallback(
    (body: ExecutionBody): string => {
      const sent = lastSent.current
      if (sent && sent.refused && !sameBody({ ...sent.body, ref_id: "" }, { ...body, ref_id: "" })) {
        const next = newRefId()
        lastSent.current = null
        setRefId(next)
        return next
      }
      return refId
    },
    [refId],
  )

  const openReview = useCallback(
    (values: ExecuteFormValues, forQuote: Quote) => {
      const draft = checkedExecutionBody(values, forQuote.id, refId)
      if (!draft.ok) {
        for (const [field, message] of Object.entries(draft.fields)) {
          const name = formFieldOf(field)
          if (name) setError(name, { type: "server", message: labelledFieldMessage(field, message, forQuote) })
        }
        return
      }
      const id = refIdFor(draft.body)
      const body = { ...draft.body, ref_id: id }
      const next: Review = {
        body,
        quote: forQuote,
        amounts: executionAmounts({ side: forQuote.side, price: forQuote.price, base_amount: body.base_amount, quote_amount: body.quote_amount }),
        profileId,
        profileName,
      }
      setSendError(null)
      setFreshNeeded(false)
      setFreshError(null)
      setReview(next)
      const store = sessionStore()
      if (store) {
        savePending(store, { version: 1, profileId, refId: id, body, quote: forQuote, values, sent: false, savedAt: new Date().toISOString() })
      }
    },
    [profileId, profileName, refId, refIdFor, setError],
  )

  const confirm = useCallback(() => {
    if (!review || inFlight.current) return
    inFlight.current = true
    const { body } = review
    const store = sessionStore()
    if (store) {
      savePending(store, {
        version: 1,
        profileId: review.profileId,
        refId: body.ref_id,
        body,
        quote: review.quote,
        values: getValues(),
        sent: true,
        savedAt: new Date().toISOString(),
      })
    }
    lastSent.current = { body, refused: false }
    setSending(true)
    setSendError(null)
    mutateAsync(body).then(
      (record) => {
        if (store) clearPending(store)
        setReview(null)
        onExecuted(record)
      },
      (error: unknown) => {
        setSendError(error)
        const outcome = outcomeOf(error)
        if (outcome === "unknown") {
          setOutcomeUnknown(true)
          return
        }
        if (store) clearPending(store)
        setOutcomeUnknown(false)
        if (outcome === "already-exists") {
          const existing = existingExecution(error)
          if (existing) {
            setReview(null)
            onExecuted(existing, error)
            return
          }
        }
        lastSent.current = { body, refused: true }
        if (outcome === "conflict") {
          // This ref_id belongs to another request: the next review starts a new submission.
          lastSent.current = { body: { ...body, quote_id: "" }, refused: true }
        }
        if (needsFreshQuote(error)) setFreshNeeded(true)
        if (error instanceof ApiProblemError && error.status === 400) {
          for (const [field, message] of Object.entries(error.fields)) {
            const name = formFieldOf(field)
            if (name) setError(name, { type: "server", message: labelledFieldMessage(field, message, review.quote) })
          }
        }
      },
    ).finally(() => {
      inFlight.current = false
      setSending(false)
    })
  }, [getValues, mutateAsync, onExecuted, review, setError])

  // A reload after the request left: send the same body and ref_id again to learn its outcome.
  const resumedSend = useRef(false)
  useEffect(() => {
    if (!resume?.sent) return
    const timer = setTimeout(() => {
      if (resumedSend.current) return
      resumedSend.current = true
      confirm()
    }, 0)
    return () => clearTimeout(timer)
  }, [confirm, resume])

  const cancel = useCallback(() => {
    const store = sessionStore()
    if (store) clearPending(store)
    setReview(null)
    setResumed(false)
    setOutcomeUnknown(false)
    setSendError(null)
  }, [])

  const freshQuote = useCallback(() => {
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
        openReview(getValues(), fresh)
      })
      .catch((error: unknown) => setFreshError(error))
      .finally(() => setFetchingQuote(false))
  }, [getValues, onQuoteChange, openReview, queryClient, review])

  const word = quote.side === "BUY" ? "Buy" : "Sell"
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
          <span className="font-semibold tabular" data-testid="form-price">
            {formatAmount(quote.price)}
          </span>{" "}
          {quote.quote_asset} per {quote.base_asset} · expires in <Countdown expiresAt={quote.expires_at} /> ·{" "}
          <span className="text-slate-600">
            reference <code className="font-mono text-xs" data-testid="form-ref-id">{refId}</code>
          </span>
        </p>
        <ModeChoice register={register} quote={quote} />
        <AmountField control={control} register={register} quote={quote} error={formState.errors.amount?.message} />
        <AmountPreview control={control} quote={quote} profileId={profileId} />
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
      <ReviewDialog
        review={review}
        error={freshError ?? sendError}
        busy={sending}
        outcomeUnknown={outcomeUnknown}
        needsFreshQuote={freshNeeded}
        fetchingQuote={fetchingQuote}
        resumed={resumed}
        onCancel={cancel}
        onConfirm={confirm}
        onFreshQuote={freshQuote}
      />
    </Card>
  )
}
