"use client"

import Link from "next/link"
import { StatusBadge } from "@/components/ui/badge"
import { Card } from "@/components/ui/card"
import { CopyButton } from "@/components/ui/copy-button"
import { ProblemAlert } from "@/components/ui/problem-alert"
import { Timestamp } from "@/components/ui/timestamp"
import { useProfileName } from "@/components/search/match-line"
import { useIntentQuery } from "@/lib/queries/search"
import type { IntentStory } from "@/lib/schemas/search"
import { IdChip } from "@/components/ui/id-chip"
import { DetailList, DetailRow } from "@/components/ui/detail-list"
import { RequestAsSent, Timeline } from "./intent-story"
import { RecordLinks } from "./record-links"
import { conversionPath, executionPath } from "@/lib/record-paths"
import { policyDiff } from "@/lib/schemas/policy-diff"
import { PolicyChangeLines, PolicyChangeWho } from "@/components/approvals/policy-changes-table"

const OPERATIONS: Record<string, string> = {
  create_execution: "Quote execution",
  create_conversion: "Conversion",
  cancel_conversion: "Cancel of a conversion",
  update_policy: "Approval policy change",
  replay_event: "Replay of a service event",
  take_snapshot: "Balance snapshot",
  update_notifications: "Team notifications change",
}

/** A policy change, field by field, and who approved it (or that a single admin applied it). */
function PolicyChangeList({ request }: { request: Record<string, unknown> }) {
  return (
    <div className="space-y-1">
      <PolicyChangeLines changes={policyDiff(request.before, request.after)} testId="intent-policy-diff" />
      <PolicyChangeWho request={request} />
    </div>
  )
}

/** The record an intent placed or acted on, as a link to its page. */
function recordHref(story: IntentStory): string | null {
  if (story.operation === "create_execution" && story.record_id && story.profile_id) {
    return executionPath(story.profile_id, story.record_id)
  }
  if (story.operation === "create_conversion" && story.record_id) return conversionPath(story.record_id)
  if (story.operation === "cancel_conversion" && story.target_id) return conversionPath(story.target_id)
  return null
}

/**
 * One console intent: who asked, when, its approval, attempts and outcome, the request as
 * sent, and the record it placed. What a search lands on when there is no record (refused,
 * waiting for approval, outcome unknown).
 */
export function IntentDetail({ id, audit }: { id: string; audit: boolean }) {
  const query = useIntentQuery(id)
  const profile = useProfileName(query.data?.profile_id ?? null)
  if (query.isPending) {
    return (
      <p role="status" className="text-sm text-slate-700">
        Loading the intent…
      </p>
    )
  }
  if (query.error) return <ProblemAlert error={query.error} />
  const story = query.data
  const record = recordHref(story)
  const quoteId = typeof story.request.quote_id === "string" ? story.request.quote_id : undefined
  return (
    <div className="space-y-6">
      <RecordLinks profileId={story.profile_id ?? undefined} quoteId={quoteId} />
      <Card title={OPERATIONS[story.operation] ?? story.operation} actions={<CopyButton value={() => window.location.href} label="link to this page" />}>
        <DetailList testId="intent-record">
          <DetailRow label="State">
            <StatusBadge status={story.state} />
          </DetailRow>
          <DetailRow label="Intent id">
            <IdChip value={story.id} label="intent id" testId="intent-id" full />
          </DetailRow>
          <DetailRow label="Asked by">
            {story.staff_email} ({story.staff_role})
          </DetailRow>
          <DetailRow label="Asked at">
            <Timestamp value={story.created_at} />
          </DetailRow>
          <DetailRow label="Profile">
            {story.profile_id ? (
              <>
                {profile ? <span className="mr-2">{profile}</span> : null}
                <IdChip value={story.profile_id} label="profile id" full />
              </>
            ) : (
              "—"
            )}
          </DetailRow>
          <DetailRow label="Reference (ref_id)">{story.ref_id ? <IdChip value={story.ref_id} label="ref_id" testId="intent-ref-id" full /> : "—"}</DetailRow>
          {quoteId ? (
            <DetailRow label="Quote id">
              <IdChip value={quoteId} label="quote id" full />
            </DetailRow>
          ) : null}
          {story.market || story.side ? (
            <DetailRow label="Side and market">
              <span data-testid="intent-market">
                {story.side ?? ""} {story.market ?? ""}
              </span>
            </DetailRow>
          ) : null}
          {story.approver ? (
            <DetailRow label={story.approval_state === "REJECTED" ? "Rejected by" : "Approved by"}>
              <span data-testid="intent-approver">{story.approver}</span>
            </DetailRow>
          ) : null}
          <DetailRow label="Attempts">{story.attempts}</DetailRow>
          {story.operation === "update_policy" ? (
            <DetailRow label="What changed">
              <PolicyChangeList request={story.request} />
            </DetailRow>
          ) : (
          <DetailRow label="Record">
            {story.record_id || story.target_id ? (
              <span className="inline-flex flex-wrap items-center gap-2">
                <IdChip value={story.record_id ?? story.target_id} label="record id" full />
                {record ? (
                  <Link href={record} className="text-blue-800 underline" data-testid="record-link">
                    Open the record
                  </Link>
                ) : null}
              </span>
            ) : (
              <span className="text-slate-700" data-testid="no-record">
                None:{" "}
                {story.state === "AWAITING_APPROVAL"
                  ? "waiting for approval, nothing sent yet"
                  : story.state === "REFUSED"
                    ? "the console refused it; nothing was sent"
                    : story.state === "FAILED"
                      ? "the request was refused"
                      : "not placed (yet)"}
              </span>
            )}
          </DetailRow>
          )}
          {story.problem ? (
            <DetailRow label="Problem">
              {story.problem.title}
              {story.problem.status ? ` (${story.problem.status})` : ""}
              {story.problem.detail ? `: ${story.problem.detail}` : ""}
            </DetailRow>
          ) : null}
        </DetailList>
      </Card>
      <Card title="Timeline">
        <div className="space-y-4">
          <Timeline stories={[story]} record={null} />
          <RequestAsSent story={story} />
          <p className="flex flex-wrap gap-x-4 text-sm">
            {audit ? (
              <Link href={`/audit?staff=${encodeURIComponent(story.staff_email)}`} className="text-blue-800 underline" data-testid="audit-link">
                {story.staff_email} in the audit trail
              </Link>
            ) : null}
          </p>
        </div>
      </Card>
    </div>
  )
}
