"use client"

import Link from "next/link"
import type { Ref } from "react"
import { RecoveredAfter } from "@/components/intents/recovered-after"
import { Alert } from "@/components/ui/alert"
import { Button } from "@/components/ui/button"
import { IdChip } from "@/components/ui/id-chip"
import { ProblemAlert, describeError } from "@/components/ui/problem-alert"
import type { SubmissionState } from "@/lib/queries/submission"
import type { Conversion } from "@/lib/schemas/records"
import type { ConversionBody } from "./form-model"
import { useConversionQuery } from "@/lib/queries/conversions"
import { CancelConversion } from "./cancel-conversion"
import { LiveConversion } from "./live-conversion"

type Placed = Extract<SubmissionState<ConversionBody, Conversion>, { kind: "placed" }>
type Unknown = Extract<SubmissionState<ConversionBody, Conversion>, { kind: "unknown" }>

const TITLES = { created: "Conversion", existing: "The existing conversion", "placed-earlier": "Conversion" } as const

/** Cancel while the conversion (followed live by LiveConversion, the same query) is still CREATED. */
function LiveCancel({ initial }: { initial: Conversion }) {
  const query = useConversionQuery(initial.id, { initialData: initial })
  return <CancelConversion conversion={query.data ?? initial} />
}

/** The conversion a submission placed (or found), followed live; it replaces the form. */
export function PlacedConversion({ placed, headingRef, onNew }: { placed: Placed; headingRef: Ref<HTMLHeadingElement>; onNew: () => void }) {
  const { record } = placed
  return (
    <div className="space-y-4">
      {placed.via === "created" ? (
        <Alert tone="success" title="Conversion created">
          It settles on its own; the status below follows it live.
        </Alert>
      ) : placed.via === "placed-earlier" ? (
        <Alert tone="success" title="Your earlier submission was placed">
          The answer to it was lost on the way, but the service has this conversion under its ref_id{" "}
          <IdChip value={record.ref_id} label="ref_id" full />, so no new one was started. Its status below follows it live.
        </Alert>
      ) : (
        <ProblemAlert error={placed.error} />
      )}
      <RecoveredAfter recordId={record.id} />
      <LiveConversion initial={record} heading={TITLES[placed.via]} headingRef={headingRef} />
      {/* It can still be cancelled while it waits to settle: the card says so, and offers it. */}
      <LiveCancel initial={record} />
      <div className="flex flex-wrap gap-3">
        <Link
          href={`/conversions/${encodeURIComponent(record.id)}`}
          className="inline-flex h-10 items-center rounded-md border border-slate-300 bg-white px-4 text-sm font-medium text-slate-900 hover:bg-slate-100"
        >
          Open its page
        </Link>
        <Button onClick={onNew}>New conversion</Button>
      </div>
    </div>
  )
}

/**
 * No answer, or one that leaves it open whether the conversion was placed. "Retry" sends
 * the same body with the same ref_id (never placed twice); "Start a new submission" first
 * asks the console what became of the ref_id, and starts one only if nothing was placed.
 */
export function UnknownOutcome({
  unknown,
  sending,
  checking,
  onRetry,
  onCheck,
}: {
  unknown: Unknown
  sending: boolean
  checking: boolean
  onRetry: () => void
  onCheck: () => void
}) {
  const refId = unknown.body.ref_id
  const { checkError } = unknown
  return (
    <div className="space-y-2">
      {unknown.error ? <ProblemAlert error={unknown.error} /> : null}
      <div className="flex flex-wrap items-center gap-3 text-sm">
        <Button busy={sending} held={checking} onClick={onRetry}>
          Retry the same submission
        </Button>
        <Button variant="secondary" busy={checking} held={sending} onClick={onCheck}>
          Start a new submission
        </Button>
        <span className="text-slate-700" data-testid="unknown-outcome-note">
          {checking
            ? `Checking whether ref_id ${refId} was placed…`
            : `Not placed yet, as far as the console can tell. Retrying sends it again with ref_id ${refId}: if the first got through you get that conversion and nothing more; if not, it is placed now. A new submission starts only once the console confirms the first was not placed.`}
        </span>
      </div>
      {checkError ? (
        <Alert tone="warning" title="Not started: it is not known yet whether the first submission was placed">
          <span data-testid="check-problem">
            {describeError(checkError).detail ?? describeError(checkError).title} Retry the same submission (if the first got through, nothing more is placed; if not, it is placed now), or try again in a
            moment.
          </span>
        </Alert>
      ) : null}
    </div>
  )
}
