"use client"

import { CONVERSION_DECIMALS } from "@/lib/format"
import { useQueryClient } from "@tanstack/react-query"
import Link from "next/link"
import { useRouter } from "next/navigation"
import { useEffect, useRef, useState } from "react"
import { RecordStory } from "@/components/intents/intent-story"
import { RecordLinks } from "@/components/intents/record-links"
import { Alert } from "@/components/ui/alert"
import { Amount } from "@/components/ui/amount"
import { Button } from "@/components/ui/button"
import { Dialog } from "@/components/ui/dialog"
import { ProblemAlert, describeError } from "@/components/ui/problem-alert"
import { ApiProblemError } from "@/lib/queries/api"
import { useCancelConversionMutation, useConversionLookupQuery, useConversionQuery } from "@/lib/queries/conversions"
import { conversionKeys, profileKeys } from "@/lib/queries/keys"
import { useBalancesQuery, useProfilesQuery } from "@/lib/queries/profiles"
import { existingRecord } from "@/lib/queries/submission"
import { type Conversion, conversionSchema } from "@/lib/schemas/records"
import { ConversionRecord } from "./conversion-record"

function problemStatus(error: unknown): number | null {
  return error instanceof ApiProblemError ? error.status : null
}

/** An id the service does not know may be a ref_id: look it up, and go to the record if it is one. */
function NotFound({ id }: { id: string }) {
  const router = useRouter()
  const lookup = useConversionLookupQuery(id, { retry: false })
  const found = lookup.data?.conversion.id
  useEffect(() => {
    if (found && found !== id) router.replace(`/conversions/${encodeURIComponent(found)}`)
  }, [found, id, router])
  if (lookup.isPending || found) {
    return (
      <p role="status" className="text-sm text-slate-700">
        No conversion has that id; looking it up as a ref_id…
      </p>
    )
  }
  return (
    <Alert tone="danger" title="Conversion not found">
      <p data-testid="not-found">
        {lookup.error instanceof ApiProblemError && lookup.error.status === 404
          ? (lookup.error.problem.detail ?? `No conversion has the id or ref_id “${id}”.`)
          : describeError(lookup.error).detail}
      </p>
      <p className="mt-2">
        <Link href="/conversions" className="font-medium text-blue-800 underline">
          Back to the conversion lookup
        </Link>
      </p>
    </Alert>
  )
}

/** Available balances of the conversion's two assets on its profile: where a refund or a credit shows. */
function ProfileBalances({ conversion }: { conversion: Conversion }) {
  const profileId = conversion.profile_id ?? null
  const balances = useBalancesQuery(profileId)
  const profiles = useProfilesQuery()
  const nickname = profiles.data?.find((p) => p.id === profileId)?.nickname ?? "this profile"
  const assets = [conversion.source_asset, conversion.target_asset].filter((a): a is string => Boolean(a))
  if (!profileId || assets.length === 0) return null
  return (
    <section aria-label="Balances" className="rounded-lg border border-slate-200 bg-white px-4 py-3 text-sm shadow-sm">
      <h2 className="mb-1 font-semibold text-slate-900">Available now on {nickname}</h2>
      {balances.error ? (
        <ProblemAlert error={balances.error} />
      ) : (
        <ul className="flex flex-wrap gap-x-6 gap-y-1">
          {assets.map((asset) => {
            const balance = balances.data?.find((b) => b.asset === asset)
            return (
              <li key={asset} data-testid={`balance-${asset}`}>
                {balance ? <Amount value={balance.available} asset={asset} /> : balances.isLoading ? `${asset}: loading…` : `${asset}: none`}
              </li>
            )
          })}
        </ul>
      )}
    </section>
  )
}

/**
 * One conversion, followed live, with a Cancel button for traders while it is CREATED.
 * A cancel the service refuses (it settled in the meantime) shows the service's answer and
 * the fresh record.
 */
export function ConversionDetail({ id, canCancel }: { id: string; canCancel: boolean }) {
  const query = useConversionQuery(id)
  const cancel = useCancelConversionMutation()
  const queryClient = useQueryClient()
  const [confirming, setConfirming] = useState<Conversion | null>(null)
  const [cancelError, setCancelError] = useState<unknown>(null)
  const [cancelledNow, setCancelledNow] = useState(false)
  // Each answer to a cancel moves the keyboard to the record: the dialog closes, and the
  // button it would hand the focus back to is gone once the record is no longer CREATED.
  const [answers, setAnswers] = useState(0)
  const recordHeading = useRef<HTMLHeadingElement>(null)
  useEffect(() => {
    if (answers > 0) recordHeading.current?.focus()
  }, [answers])

  if (query.isPending) {
    return (
      <p role="status" className="text-sm text-slate-700">
        Loading the conversion…
      </p>
    )
  }
  if (!query.data) {
    const status = problemStatus(query.error)
    if (status === 404) return <NotFound id={id} />
    if (status === 400) {
      return (
        <Alert tone="danger" title="That is not a conversion id">
          {describeError(query.error).detail} Ids and ref_ids use letters, digits and . _ : - only.
        </Alert>
      )
    }
    return (
      <div className="space-y-3">
        <ProblemAlert error={query.error} />
        <Button variant="secondary" onClick={() => void query.refetch()}>
          Try again
        </Button>
      </div>
    )
  }

  const conversion = query.data

  function confirmCancel() {
    if (!confirming || cancel.isPending) return
    cancel.mutate(confirming.id, {
      onSuccess: () => {
        setConfirming(null)
        setCancelError(null)
        setCancelledNow(true)
        setAnswers((n) => n + 1)
      },
      onError: (error) => {
        setConfirming(null)
        setCancelError(error)
        setAnswers((n) => n + 1)
        // A refused cancel carries the fresh record.
        const fresh = existingRecord(error, conversionSchema)
        if (fresh) queryClient.setQueryData(conversionKeys.detail(fresh.id), fresh)
        void query.refetch()
        if (conversion.profile_id) void queryClient.invalidateQueries({ queryKey: profileKeys.balances(conversion.profile_id) })
      },
    })
  }

  const refusal = cancelError ? describeError(cancelError) : null
  return (
    <div className="space-y-4">
      {cancelledNow && conversion.status === "CANCELLED" ? (
        <Alert tone="success" title="Conversion cancelled">
          <Amount value={conversion.amount} asset={conversion.source_asset} places={CONVERSION_DECIMALS} /> went back to the profile&apos;s available balance.
        </Alert>
      ) : null}
      {refusal ? (
        <Alert tone="danger" title={problemStatus(cancelError) === 409 ? "Not cancelled: it is no longer pending" : `Not cancelled: ${refusal.title}`}>
          <p data-testid="cancel-problem">{refusal.detail}</p>
          {problemStatus(cancelError) === 409 ? <p className="mt-1">The record below is fresh from the service.</p> : null}
        </Alert>
      ) : null}

      <RecordLinks profileId={conversion.profile_id} />

      <ConversionRecord conversion={conversion} heading="Details" headingRef={recordHeading} />

      {canCancel && conversion.status === "CREATED" ? (
        <div>
          <Button
            variant="danger"
            onClick={() => {
              setCancelError(null)
              setConfirming(conversion)
            }}
          >
            Cancel conversion
          </Button>
        </div>
      ) : null}

      <ProfileBalances conversion={conversion} />

      <RecordStory recordId={conversion.id} record={conversion} />

      {query.error ? (
        <p role="status" className="text-sm text-amber-900">
          Could not refresh the status just now ({describeError(query.error).title.toLowerCase()}); still trying.
        </p>
      ) : null}

      <Dialog
        open={confirming !== null}
        onClose={() => {
          if (!cancel.isPending) setConfirming(null)
        }}
        title="Cancel this conversion?"
        footer={
          <>
            <Button variant="secondary" held={cancel.isPending} onClick={() => setConfirming(null)}>
              Keep it
            </Button>
            <Button variant="danger" busy={cancel.isPending} onClick={confirmCancel}>
              Cancel conversion
            </Button>
          </>
        }
      >
        {confirming ? (
          <div className="space-y-3 text-sm">
            <p>
              <Amount value={confirming.amount} asset={confirming.source_asset} places={CONVERSION_DECIMALS} /> → {confirming.target_asset} will not settle, and the{" "}
              {confirming.source_asset} goes back to the profile&apos;s available balance.
            </p>
            <dl className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1">
              <dt className="font-medium text-slate-600">Conversion id</dt>
              <dd className="break-all font-mono text-xs">{confirming.id}</dd>
              <dt className="font-medium text-slate-600">ref_id</dt>
              <dd className="break-all font-mono text-xs">{confirming.ref_id ?? "—"}</dd>
            </dl>
            {conversion.status !== "CREATED" ? (
              <Alert tone="warning" title={`It is now ${conversion.status}`}>
                The service will most likely refuse to cancel it.
              </Alert>
            ) : null}
          </div>
        ) : null}
      </Dialog>
    </div>
  )
}
