"use client"

import Link from "next/link"
import { useRouter } from "next/navigation"
import { useEffect, useRef, useState } from "react"
import { RecordStory } from "@/components/intents/intent-story"
import { RecordLinks } from "@/components/intents/record-links"
import { Alert } from "@/components/ui/alert"
import { Amount } from "@/components/ui/amount"
import { ProblemAlert, ProblemWithRetry, describeError } from "@/components/ui/problem-alert"
import { ApiProblemError } from "@/lib/queries/api"
import { useConversionLookupQuery, useConversionQuery } from "@/lib/queries/conversions"
import { useBalancesQuery, useProfilesQuery } from "@/lib/queries/profiles"
import type { Conversion } from "@/lib/schemas/records"
import { CancelConversion } from "./cancel-conversion"
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
    return <ProblemWithRetry error={query.error} onRetry={() => void query.refetch()} />
  }

  const conversion = query.data

  return (
    <div className="space-y-4">
      <RecordLinks profileId={conversion.profile_id} />

      {/* One timeline on this page: the record's story below names who asked, who approved and who cancelled. */}
      <ConversionRecord conversion={conversion} heading="Details" headingRef={recordHeading} timeline={false} />

      {canCancel ? <CancelConversion conversion={conversion} onAnswered={() => setAnswers((n) => n + 1)} /> : null}

      <ProfileBalances conversion={conversion} />

      <RecordStory recordId={conversion.id} record={conversion} />

      {query.error ? (
        <p role="status" className="text-sm text-amber-900">
          Could not refresh the status just now ({describeError(query.error).title.toLowerCase()}); still trying.
        </p>
      ) : null}

    </div>
  )
}
