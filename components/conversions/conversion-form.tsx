"use client"

import { zodResolver } from "@hookform/resolvers/zod"
import Link from "next/link"
import { useEffect, useRef, useState } from "react"
import { Controller, useForm, useWatch } from "react-hook-form"
import { MetadataEditor } from "@/components/forms/metadata-editor"
import { OnBehalfOf } from "@/components/forms/on-behalf-of"
import { ProfilePicker } from "@/components/profile/profile-picker"
import { Alert } from "@/components/ui/alert"
import { Amount } from "@/components/ui/amount"
import { Button } from "@/components/ui/button"
import { Dialog } from "@/components/ui/dialog"
import { Field, Input, Select } from "@/components/ui/field"
import { ProblemAlert, describeError } from "@/components/ui/problem-alert"
import { formatAmount } from "@/lib/money"
import { ApiProblemError } from "@/lib/queries/api"
import { useCreateConversionMutation } from "@/lib/queries/conversions"
import { useBalancesQuery, useSelectedProfile } from "@/lib/queries/profiles"
import { CONVERSION_ASSETS, conversionTargets } from "@/lib/schemas/conversion"
import { type Conversion, conversionSchema } from "@/lib/schemas/records"
import {
  type ConversionBody,
  type ConversionFormValues,
  EMPTY_FORM,
  PAIR_RULE,
  checkedConversionBody,
  conversionFormFieldOf,
  conversionFormSchema,
  fieldMessage,
  isDefiniteRefusal,
  narrowedTarget,
  sourceShortfall,
} from "./form-model"
import { LiveConversion } from "./live-conversion"
import { newRefId, resolveEarlierSubmission } from "./queries"

/** The record a 409 Already Exists names, if it carries a readable one. */
function existingRecord(error: unknown): Conversion | null {
  if (!(error instanceof ApiProblemError) || error.status !== 409) return null
  const parsed = conversionSchema.safeParse(error.problem.meta?.existing)
  return parsed.success ? parsed.data : null
}

type Outcome =
  | { kind: "created"; record: Conversion }
  | { kind: "existing"; record: Conversion; error: unknown }
  /** The submission whose answer was lost turned out to have been placed. */
  | { kind: "placed-earlier"; record: Conversion }
  /** `retry`: the outcome is unknown, so only this body may be sent (again); `checkError`: asking whether it was placed failed. */
  | { kind: "failed"; error: unknown; retry: ConversionBody | null; checkError?: unknown }

const OUTCOME_TITLES = { created: "Conversion", existing: "The existing conversion", "placed-earlier": "Conversion" } as const

/**
 * Create a stablecoin conversion. One submission is one ref_id, made when the form opens:
 * double clicks and retries of that submission reuse it, so the service places it once.
 * A definite refusal (a 4xx) ends the submission, and the next Review starts a new one.
 * After an unknown outcome (no answer, a 5xx, a 429) a new ref_id is only made once the
 * console has said that nothing was placed under the old one.
 */
export function ConversionForm() {
  const { profileId, profiles, setProfileId, isLoading: profilesLoading, error: profilesError } = useSelectedProfile()
  // One ref_id per submission, made when the form opens (it is only shown once the review opens).
  const [refId, setRefId] = useState(newRefId)
  const [review, setReview] = useState<ConversionBody | null>(null)
  const [outcome, setOutcome] = useState<Outcome | null>(null)
  const sending = useRef(false)
  const [checking, setChecking] = useState(false)
  const create = useCreateConversionMutation()
  const recordHeading = useRef<HTMLHeadingElement>(null)
  const reviewButton = useRef<HTMLButtonElement>(null)
  // Where the keyboard goes once the form is back on screen (the button that was pressed is gone).
  const focusNext = useRef<"amount" | "review" | null>(null)

  const form = useForm<ConversionFormValues>({
    resolver: zodResolver(conversionFormSchema),
    mode: "onChange",
    defaultValues: EMPTY_FORM,
  })
  const { control, register, handleSubmit, setValue, getValues, setError, clearErrors, reset, setFocus, formState } = form
  const { errors } = formState

  // The record replaces the form (and its dialog): the keyboard goes to the record's heading.
  const shownRecord = outcome && outcome.kind !== "failed" ? outcome.record.id : null
  const retryShown = outcome?.kind === "failed" && outcome.retry !== null
  useEffect(() => {
    if (shownRecord) {
      recordHeading.current?.focus()
      return
    }
    const target = focusNext.current
    focusNext.current = null
    if (target === "amount") setFocus("amount")
    else if (target === "review") reviewButton.current?.focus()
  }, [shownRecord, retryShown, setFocus])

  useEffect(() => {
    if (profileId && getValues("profile_id") !== profileId) setValue("profile_id", profileId, { shouldValidate: formState.isSubmitted })
  }, [profileId, getValues, setValue, formState.isSubmitted])

  const [source, amount] = useWatch({ control, name: ["source_asset", "amount"] })
  const balances = useBalancesQuery(profileId)
  const sourceBalance = balances.data?.find((b) => b.asset === source)
  // Once the balances are in, a profile without a row for the source asset has none of it.
  const gap = sourceShortfall(amount, source, balances.data)
  const profileName = (id: string | undefined) => profiles.find((p) => p.id === id)?.nickname

  const onReview = handleSubmit((values) => {
    clearErrors("root")
    const checked = checkedConversionBody(values, refId)
    if (!checked.ok) {
      // The form's rules let through something the create schema refuses: say which, where.
      const elsewhere: string[] = []
      for (const [field, rule] of Object.entries(checked.fields)) {
        const name = conversionFormFieldOf(field)
        if (name) setError(name, { type: "schema", message: rule })
        else elsewhere.push(`${field}: ${rule}`)
      }
      if (elsewhere.length > 0) setError("root", { type: "schema", message: elsewhere.join("; ") })
      return
    }
    // A refusal already answered belongs to the last attempt, not to what is reviewed now.
    if (outcome?.kind === "failed" && !outcome.retry) setOutcome(null)
    setReview(checked.body)
  })

  function send(body: ConversionBody) {
    if (sending.current) return
    sending.current = true
    create.mutate(body, {
      onSuccess: (record) => {
        setReview(null)
        setOutcome({ kind: "created", record })
      },
      onError: (error) => {
        setReview(null)
        const existing = existingRecord(error)
        if (existing) {
          setOutcome({ kind: "existing", record: existing, error })
          setRefId(newRefId())
          return
        }
        if (error instanceof ApiProblemError && isDefiniteRefusal(error.status)) {
          // Nothing was placed under this ref_id: the next Review is a new submission.
          setRefId(newRefId())
          for (const [field, rule] of Object.entries(error.fields)) {
            const name = conversionFormFieldOf(field)
            if (name) setError(name, { type: "server", message: rule })
          }
          setOutcome({ kind: "failed", error, retry: null })
          return
        }
        // No answer, or the service may have placed it: only the identical body may be sent again.
        setOutcome({ kind: "failed", error, retry: body })
      },
      onSettled: () => {
        sending.current = false
      },
    })
  }

  function startOver(keepValues: boolean) {
    focusNext.current = keepValues ? "review" : "amount"
    setOutcome(null)
    setReview(null)
    setRefId(newRefId())
    create.reset()
    if (!keepValues) reset({ ...EMPTY_FORM, profile_id: profileId ?? "" })
  }

  /**
   * "Start a new submission" after an unknown outcome: first ask whether the old ref_id
   * was placed. Placed → that is the outcome. Not placed → a new ref_id. Cannot tell →
   * keep the old one (only "Retry the same submission" stays safe).
   */
  async function startNewAfterUnknown(earlier: ConversionBody) {
    if (checking || sending.current) return
    setChecking(true)
    try {
      const answer = await resolveEarlierSubmission(earlier.ref_id)
      if (answer.placed === true) {
        create.reset()
        setOutcome({ kind: "placed-earlier", record: answer.record })
      } else if (answer.placed === false) {
        startOver(true)
      } else {
        setOutcome((current) => (current?.kind === "failed" ? { ...current, checkError: answer.error } : current))
      }
    } finally {
      setChecking(false)
    }
  }

  if (outcome && outcome.kind !== "failed") {
    return (
      <div className="space-y-4">
        {outcome.kind === "created" ? (
          <Alert tone="success" title="Conversion created">
            It settles on its own; the status below follows it live.
          </Alert>
        ) : outcome.kind === "placed-earlier" ? (
          <Alert tone="success" title="Your earlier submission was placed">
            The answer to it was lost on the way, but the service has this conversion under its ref_id{" "}
            <code className="font-mono text-xs">{outcome.record.ref_id}</code>, so no new one was started. Its status below follows it live.
          </Alert>
        ) : (
          <ProblemAlert error={outcome.error} />
        )}
        <LiveConversion initial={outcome.record} heading={OUTCOME_TITLES[outcome.kind]} headingRef={recordHeading} />
        <div className="flex flex-wrap gap-3">
          <Link
            href={`/conversions/${encodeURIComponent(outcome.record.id)}`}
            className="inline-flex h-10 items-center rounded-md border border-slate-300 bg-white px-4 text-sm font-medium text-slate-900 hover:bg-slate-100"
          >
            Open its page
          </Link>
          <Button onClick={() => startOver(false)}>New conversion</Button>
        </div>
      </div>
    )
  }

  const failed = outcome?.kind === "failed" ? outcome : null
  const targets = conversionTargets(source)

  return (
    <form noValidate aria-label="New conversion" onSubmit={(event) => void onReview(event)} className="max-w-2xl space-y-5">
      <ProfilePicker
        profiles={profiles}
        profileId={profileId}
        onChange={setProfileId}
        disabled={profilesLoading}
        error={fieldMessage("Profile", errors.profile_id?.message)}
      />
      {profilesError ? <ProblemAlert error={profilesError} /> : null}

      <div className="grid gap-4 sm:grid-cols-2">
        <Controller
          control={control}
          name="source_asset"
          render={({ field }) => (
            <Field label="From (source asset)" error={fieldMessage("Source asset", errors.source_asset?.message)}>
              {(a11y) => (
                <Select
                  {...a11y}
                  ref={field.ref}
                  name={field.name}
                  value={field.value}
                  onBlur={field.onBlur}
                  onChange={(event) => {
                    field.onChange(event.target.value)
                    setValue("target_asset", narrowedTarget(event.target.value, getValues("target_asset")), { shouldValidate: true })
                  }}
                >
                  {CONVERSION_ASSETS.map((asset) => (
                    <option key={asset} value={asset}>
                      {asset}
                    </option>
                  ))}
                </Select>
              )}
            </Field>
          )}
        />
        <Controller
          control={control}
          name="target_asset"
          render={({ field }) => (
            <Field label="To (target asset)" error={fieldMessage("Target asset", errors.target_asset?.message)}>
              {(a11y) => (
                <Select {...a11y} ref={field.ref} name={field.name} value={field.value} onBlur={field.onBlur} onChange={(event) => field.onChange(event.target.value)}>
                  {field.value === "" || targets.length > 1 ? <option value="">Choose an asset</option> : null}
                  {targets.map((asset) => (
                    <option key={asset} value={asset}>
                      {asset}
                    </option>
                  ))}
                  {field.value !== "" && !targets.some((t) => t === field.value) ? <option value={field.value}>{field.value}</option> : null}
                </Select>
              )}
            </Field>
          )}
        />
      </div>
      <p className="-mt-3 text-xs text-slate-600">{PAIR_RULE}. Conversions are 1:1.</p>

      <Field
        label={`Amount${source ? ` (${source})` : ""}`}
        error={fieldMessage("Amount", errors.amount?.message)}
        hint={
          <span data-testid="source-balance">
            {sourceBalance ? (
              <>
                Available: <Amount value={sourceBalance.available} asset={sourceBalance.asset} minPlaces={2} />.
              </>
            ) : balances.data && source ? (
              `No ${source} balance on this profile (available: 0).`
            ) : profileId && balances.isPending ? (
              "Loading the balance…"
            ) : null}{" "}
            Up to 2 decimals, more than 0.
          </span>
        }
      >
        {(a11y) => <Input {...a11y} inputMode="decimal" autoComplete="off" spellCheck={false} placeholder="0.00" {...register("amount")} />}
      </Field>
      {gap ? (
        <Alert tone="warning" title={`Not enough ${source} on this profile`}>
          <span data-testid="shortfall">
            Needed {formatAmount(gap.needed, { minPlaces: 2 })} {source}, available {formatAmount(gap.available, { minPlaces: 2 })} {source} (short by{" "}
            {formatAmount(gap.short, { minPlaces: 2 })}). The service will refuse it unless funds arrive first.
          </span>
        </Alert>
      ) : null}

      <MetadataEditor control={control} register={register} errors={errors} />
      <OnBehalfOf register={register} errors={errors} />

      {errors.root?.message ? (
        <Alert tone="danger" title="This conversion cannot be sent as it is">
          {errors.root.message}
        </Alert>
      ) : null}

      {failed ? (
        <div className="space-y-2">
          <ProblemAlert error={failed.error} />
          {failed.retry ? (
            <div className="flex flex-wrap items-center gap-3 text-sm">
              <Button busy={create.isPending} held={checking} onClick={() => failed.retry && send(failed.retry)}>
                Retry the same submission
              </Button>
              <Button variant="secondary" busy={checking} held={create.isPending} onClick={() => failed.retry && void startNewAfterUnknown(failed.retry)}>
                Start a new submission
              </Button>
              <span className="text-slate-700" data-testid="unknown-outcome-note">
                {checking
                  ? `Checking whether ref_id ${failed.retry.ref_id} was placed…`
                  : `Retrying reuses ref_id ${failed.retry.ref_id}, so it is never placed twice. A new submission starts only once the console confirms the first was not placed.`}
              </span>
            </div>
          ) : null}
          {failed.retry && failed.checkError ? (
            <Alert tone="warning" title="Not started: it is not known yet whether the first submission was placed">
              <span data-testid="check-problem">
                {describeError(failed.checkError).detail ?? describeError(failed.checkError).title} Retry the same submission (it is never placed twice), or try
                again in a moment.
              </span>
            </Alert>
          ) : null}
        </div>
      ) : null}

      <div className="flex gap-3">
        <Button ref={reviewButton} type="submit" disabled={!profileId || Boolean(failed?.retry)}>
          Review
        </Button>
      </div>

      <Dialog
        open={review !== null}
        onClose={() => {
          if (!create.isPending) setReview(null)
        }}
        title="Confirm the conversion"
        footer={
          <>
            <Button variant="secondary" held={create.isPending} onClick={() => setReview(null)}>
              Back
            </Button>
            <Button busy={create.isPending} onClick={() => review && send(review)}>
              Confirm conversion
            </Button>
          </>
        }
      >
        {review ? (
          <dl className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-2 text-sm" data-testid="review">
            <dt className="font-medium text-slate-600">Profile</dt>
            <dd>
              {profileName(review.profile_id) ?? ""} <code className="font-mono text-xs">{review.profile_id}</code>
            </dd>
            <dt className="font-medium text-slate-600">Convert</dt>
            <dd data-testid="review-amount">
              <Amount value={review.amount} asset={review.source_asset} minPlaces={2} />
            </dd>
            <dt className="font-medium text-slate-600">Into</dt>
            <dd>
              <Amount value={review.amount} asset={review.target_asset} minPlaces={2} /> (1:1)
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
        {create.isPending ? (
          <p role="status" className="mt-3 text-sm text-slate-700">
            Placing the conversion…
          </p>
        ) : null}
      </Dialog>
    </form>
  )
}
