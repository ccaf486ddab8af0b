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
import { ProblemAlert } from "@/components/ui/problem-alert"
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
  conversionFormSchema,
  fieldMessage,
  isDefiniteRefusal,
  narrowedTarget,
  shortfall,
  toConversionBody,
} from "./form-model"
import { LiveConversion } from "./live-conversion"
import { newRefId } from "./queries"

const FORM_FIELDS = new Set(["amount", "source_asset", "target_asset", "identity_id", "account_id", "recipient_profile_id"])

/** The record a 409 Already Exists names, if it carries a readable one. */
function existingRecord(error: unknown): Conversion | null {
  if (!(error instanceof ApiProblemError) || error.status !== 409) return null
  const parsed = conversionSchema.safeParse(error.problem.meta?.existing)
  return parsed.success ? parsed.data : null
}

type Outcome =
  | { kind: "created"; record: Conversion }
  | { kind: "existing"; record: Conversion; error: unknown }
  | { kind: "failed"; error: unknown; retry: ConversionBody | null }

/**
 * Create a stablecoin conversion. One submission is one ref_id, made when the form opens:
 * double clicks and retries of that submission reuse it, so the service places it once.
 * A definite refusal (a 4xx) ends the submission, and the next Review starts a new one.
 */
export function ConversionForm() {
  const { profileId, profiles, setProfileId, isLoading: profilesLoading, error: profilesError } = useSelectedProfile()
  // One ref_id per submission, made when the form opens (it is only shown once the review opens).
  const [refId, setRefId] = useState(newRefId)
  const [review, setReview] = useState<ConversionBody | null>(null)
  const [outcome, setOutcome] = useState<Outcome | null>(null)
  const sending = useRef(false)
  const create = useCreateConversionMutation()

  const form = useForm<ConversionFormValues>({
    resolver: zodResolver(conversionFormSchema),
    mode: "onChange",
    defaultValues: EMPTY_FORM,
  })
  const { control, register, handleSubmit, setValue, getValues, setError, reset, formState } = form
  const { errors } = formState

  useEffect(() => {
    if (profileId && getValues("profile_id") !== profileId) setValue("profile_id", profileId, { shouldValidate: formState.isSubmitted })
  }, [profileId, getValues, setValue, formState.isSubmitted])

  const [source, amount] = useWatch({ control, name: ["source_asset", "amount"] })
  const balances = useBalancesQuery(profileId)
  const sourceBalance = balances.data?.find((b) => b.asset === source)
  const gap = sourceBalance ? shortfall(amount, sourceBalance.available) : null
  const profileName = (id: string | undefined) => profiles.find((p) => p.id === id)?.nickname

  const onReview = handleSubmit((values) => {
    // A refusal already answered belongs to the last attempt, not to what is reviewed now.
    if (outcome?.kind === "failed" && !outcome.retry) setOutcome(null)
    setReview(toConversionBody(values, refId))
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
            if (FORM_FIELDS.has(field)) setError(field as keyof ConversionFormValues, { type: "server", message: rule })
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
    setOutcome(null)
    setReview(null)
    setRefId(newRefId())
    create.reset()
    if (!keepValues) reset({ ...EMPTY_FORM, profile_id: profileId ?? "" })
  }

  if (outcome?.kind === "created" || outcome?.kind === "existing") {
    return (
      <div className="space-y-4">
        {outcome.kind === "created" ? (
          <Alert tone="success" title="Conversion created">
            It settles on its own; the status below follows it live.
          </Alert>
        ) : (
          <ProblemAlert error={outcome.error} />
        )}
        <LiveConversion initial={outcome.record} heading={outcome.kind === "created" ? "Conversion" : "The existing conversion"} />
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
      <ProfilePicker profiles={profiles} profileId={profileId} onChange={setProfileId} disabled={profilesLoading} />
      {errors.profile_id?.message ? (
        <p role="alert" className="text-sm font-medium text-red-700">
          {fieldMessage("Profile", errors.profile_id.message)}
        </p>
      ) : null}
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
              `No ${source} balance on this profile.`
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

      {failed ? (
        <div className="space-y-2">
          <ProblemAlert error={failed.error} />
          {failed.retry ? (
            <div className="flex flex-wrap items-center gap-3 text-sm">
              <Button busy={create.isPending} onClick={() => failed.retry && send(failed.retry)}>
                Retry the same submission
              </Button>
              <Button variant="secondary" onClick={() => startOver(true)}>
                Start a new submission
              </Button>
              <span className="text-slate-700">
                Retrying reuses ref_id <code className="font-mono text-xs">{failed.retry.ref_id}</code>, so it is never placed twice.
              </span>
            </div>
          ) : null}
        </div>
      ) : null}

      <div className="flex gap-3">
        <Button type="submit" disabled={!profileId || Boolean(failed?.retry)}>
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
            <Button variant="secondary" disabled={create.isPending} onClick={() => setReview(null)}>
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
