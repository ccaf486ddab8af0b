"use client"

import { zodResolver } from "@hookform/resolvers/zod"
import { useQueryClient } from "@tanstack/react-query"
import { useEffect, useRef, useState } from "react"
import { useForm, useWatch } from "react-hook-form"
import { MetadataEditor } from "@/components/forms/metadata-editor"
import { OnBehalfOf } from "@/components/forms/on-behalf-of"
import { ProfilePicker } from "@/components/profile/profile-picker"
import { Alert } from "@/components/ui/alert"
import { Button } from "@/components/ui/button"
import { ProblemAlert } from "@/components/ui/problem-alert"
import { conversionSize } from "@/lib/limits"
import { preTradeVerdict } from "@/lib/pre-trade"
import { lookupConversionSubmission, useCreateConversionMutation } from "@/lib/queries/conversions"
import { preTradeKeys, usePreTradeFactsQuery } from "@/lib/queries/limits"
import { useBalancesQuery, useSelectedProfile } from "@/lib/queries/profiles"
import { sessionStore } from "@/lib/queries/pending-submission"
import { type SubmissionState, useSubmission } from "@/lib/queries/submission"
import { type Conversion, conversionSchema } from "@/lib/schemas/records"
import { AmountField, AssetFields } from "./conversion-fields"
import { PlacedConversionRecord } from "@/components/approvals/placed-conversion"
import { RequestStatus } from "@/components/approvals/request-status"
import { isApprovalRequest } from "@/lib/queries/approvals"
import type { ApprovalRequest } from "@/lib/schemas/approvals"
import { PlacedConversion, UnknownOutcome } from "./conversion-outcome"
import { ConversionReview } from "./conversion-review"
import {
  type ConversionBody,
  type ConversionFormValues,
  EMPTY_FORM,
  checkedConversionBody,
  conversionFormFieldOf,
  conversionFormSchema,
  fieldMessage,
} from "./form-model"
import { type PendingConversion, pendingConversions } from "./pending-conversion"

const FIELD_LABELS: Record<string, string> = {
  profile_id: "Profile",
  source_asset: "Source asset",
  target_asset: "Target asset",
  amount: "Amount",
  metadata: "Metadata",
  identity_id: "Identity id",
  account_id: "Account id",
  recipient_profile_id: "Recipient profile id",
}

/**
 * Create a stablecoin conversion, exactly once per submission (see lib/queries/submission):
 * one ref_id per submission, a definite refusal ends it, and after an unknown outcome a new
 * one starts only once the console has said nothing was placed under the old ref_id.
 * A conversion sent before a reload whose answer was never seen is resumed: the console is
 * asked what became of its ref_id, and it is sent again only when the person says so.
 */
export function ConversionForm() {
  const [resume, setResume] = useState<PendingConversion | null>(null)
  useEffect(() => {
    const store = sessionStore()
    const pending = store ? pendingConversions.load(store, Date.now()) : null
    if (!pending) return
    if (!pending.sent) {
      if (store) pendingConversions.clear(store)
      return
    }
    // Read after the first paint (the server has no sessionStorage): the form starts again as the resumed submission.
    queueMicrotask(() => setResume(pending))
  }, [])
  return <ConversionSubmissionForm key={resume?.refId ?? "new"} resume={resume} />
}

function ConversionSubmissionForm({ resume }: { resume: PendingConversion | null }) {
  const { profileId, profiles, setProfileId, isLoading: profilesLoading, error: profilesError } = useSelectedProfile()
  const [review, setReview] = useState<ConversionBody | null>(null)
  // Resumed after a reload and not placed (as far as the console can tell): offered again, sent only on a click.
  const [notPlacedYet, setNotPlacedYet] = useState(false)
  const [askingOnResume, setAskingOnResume] = useState(resume !== null)
  // A refusal is shown until the next Review: it belongs to the last attempt.
  const [refusalShown, setRefusalShown] = useState(false)
  const { mutateAsync } = useCreateConversionMutation()
  const queryClient = useQueryClient()
  const recordHeading = useRef<HTMLHeadingElement>(null)
  const reviewButton = useRef<HTMLButtonElement>(null)
  // Where the keyboard goes once the form is back on screen (the button that was pressed is gone).
  const focusNext = useRef<"amount" | "review" | null>(null)

  const form = useForm<ConversionFormValues>({ resolver: zodResolver(conversionFormSchema), mode: "onChange", defaultValues: resume?.values ?? EMPTY_FORM })
  const { control, register, handleSubmit, setValue, getValues, setError, clearErrors, reset, setFocus, formState } = form
  const { errors } = formState

  const onAnswer = (state: SubmissionState<ConversionBody, Conversion | ApprovalRequest>) => {
    void queryClient.invalidateQueries({ queryKey: preTradeKeys.all })
    if (askingOnResume && resume) {
      setAskingOnResume(false)
      if (state.kind === "open") {
        // Nothing was placed under the ref_id: the same conversion is offered again (still kept across another reload).
        setNotPlacedYet(true)
        setReview(resume.body)
        return
      }
    }
    setNotPlacedYet(false)
    setReview(null)
    if (state.kind === "open") focusNext.current = "review"
    if (state.kind === "refused") setRefusalShown(true)
  }
  const submission = useSubmission<ConversionBody, Conversion | ApprovalRequest, PendingConversion, ConversionFormValues>({
    send: mutateAsync,
    lookup: (body) => lookupConversionSubmission(body.ref_id),
    existing: conversionSchema,
    persist: { store: pendingConversions, resume },
    fieldErrors: { setError, fieldOf: conversionFormFieldOf },
    onAnswer,
  })
  const { state, refId } = submission

  // The resumed submission's profile is the one shown.
  const resumedProfile = resume?.body.profile_id
  useEffect(() => {
    if (resumedProfile) setProfileId(resumedProfile)
  }, [resumedProfile, setProfileId])

  const discard = () => {
    submission.drop()
    setNotPlacedYet(false)
    setReview(null)
  }

  // The record replaces the form (and its dialog): the keyboard goes to the record's heading.
  const shownRecord = state.kind === "placed" ? state.record.id : null
  const unknownShown = state.kind === "unknown"
  useEffect(() => {
    if (shownRecord) {
      recordHeading.current?.focus()
      return
    }
    const target = focusNext.current
    focusNext.current = null
    if (target === "amount") setFocus("amount")
    else if (target === "review") reviewButton.current?.focus()
  }, [shownRecord, unknownShown, setFocus])

  useEffect(() => {
    if (profileId && getValues("profile_id") !== profileId) setValue("profile_id", profileId, { shouldValidate: formState.isSubmitted })
  }, [profileId, getValues, setValue, formState.isSubmitted])

  const [source, amount] = useWatch({ control, name: ["source_asset", "amount"] })
  const balances = useBalancesQuery(profileId)
  const profileName = (id: string | undefined) => profiles.find((p) => p.id === id)?.nickname

  // Why Review did not open, named once above the button (each field says its rule under it).
  const [blockedBy, setBlockedBy] = useState<string[]>([])
  const onReview = handleSubmit(
    (values) => {
    setBlockedBy([])
    clearErrors("root")
    const checked = checkedConversionBody(values, refId)
    if (!checked.ok) {
      // The form's rules let through something the create schema refuses: say which, where.
      const elsewhere = submission.showFieldRules(checked.fields, "schema")
      if (elsewhere.length > 0) setError("root", { type: "schema", message: elsewhere.join("; ") })
      return
    }
    setRefusalShown(false)
    setReview(checked.body)
    // Kept from here, so the send (and a reload before its answer) has it: a reload at this step starts the form again.
    submission.keep(checked.body, { values: { ...getValues(), profile_id: checked.body.profile_id } })
    },
    (invalid) => setBlockedBy(Object.keys(invalid).map((field) => FIELD_LABELS[field] ?? field)),
  )
  const facts = usePreTradeFactsQuery()
  const checks = review
    ? {
        verdict: preTradeVerdict("conversion", conversionSize(review), facts.data),
        funds: {
          asset: review.source_asset,
          needed: review.amount,
          available: balances.data ? (balances.data.find((b) => b.asset === review.source_asset)?.available ?? "0") : undefined,
        },
      }
    : null

  function startOver() {
    focusNext.current = "amount"
    setReview(null)
    setRefusalShown(false)
    submission.startOver()
    reset({ ...EMPTY_FORM, profile_id: profileId ?? "" })
  }

  if (state.kind === "placed") {
    const { record } = state
    if (isApprovalRequest(record)) {
      return (
        <RequestStatus
          initial={record}
          record={(recordId) => <PlacedConversionRecord id={recordId} />}
          actions={<Button onClick={startOver}>New conversion</Button>}
        />
      )
    }
    return <PlacedConversion placed={{ ...state, record }} headingRef={recordHeading} onNew={startOver} />
  }

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
      <AssetFields control={control} errors={errors} source={source} setValue={setValue} getValues={getValues} />
      <AmountField
        register={register}
        errors={errors}
        source={source}
        amount={amount}
        balances={balances.data}
        loadingBalances={Boolean(profileId) && balances.isPending}
      />
      <MetadataEditor control={control} register={register} errors={errors} />
      <OnBehalfOf register={register} errors={errors} />

      {errors.root?.message ? (
        <Alert tone="danger" title="This conversion cannot be sent as it is">
          {errors.root.message}
        </Alert>
      ) : null}
      {state.kind === "refused" && refusalShown ? <ProblemAlert error={state.error} /> : null}
      {state.kind === "unknown" ? (
        <UnknownOutcome unknown={state} sending={submission.sending} checking={submission.checking} onRetry={submission.retry} onCheck={submission.check} />
      ) : null}

      {blockedBy.length > 0 ? (
        <Alert tone="danger" title="Review did not open">
          <span data-testid="review-blocked">
            Fix {blockedBy.join(", ")} first: each says why under it.
          </span>
        </Alert>
      ) : null}
      <div className="flex gap-3">
        <Button ref={reviewButton} type="submit" disabled={!profileId || state.kind === "unknown" || submission.checking}>
          Review
        </Button>
      </div>

      {askingOnResume && resume ? (
        <p role="status" className="text-sm text-slate-700" data-testid="resume-checking">
          This conversion was sent before the page reloaded and its answer was never seen: asking the console what became of ref_id {resume.refId}…
        </p>
      ) : null}
      <ConversionReview
        review={review}
        sending={submission.sending}
        notPlacedYet={notPlacedYet}
        checks={notPlacedYet ? null : checks}
        profileName={profileName}
        onBack={notPlacedYet ? discard : () => setReview(null)}
        onConfirm={submission.submit}
      />
    </form>
  )
}
