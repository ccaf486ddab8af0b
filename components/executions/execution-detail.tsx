"use client"

import Link from "next/link"
import { ExecutionRecordCard } from "@/components/executions/execution-record-card"
import { RecordLinks } from "@/components/intents/record-links"
import { RecordStory } from "@/components/intents/intent-story"
import { useExecutionQuery } from "@/lib/queries/executions"
import { useProfilesQuery } from "@/lib/queries/profiles"

/**
 * One execution on its own page, polled until it settles. Support and up also see its
 * story: what the console knows of it (who placed it, approvals, attempts) and links.
 */
export function ExecutionDetail({ profileId, id, story = false }: { profileId: string; id: string; story?: boolean }) {
  const profiles = useProfilesQuery()
  const profileName = profiles.data?.find((p) => p.id === profileId)?.nickname
  // The same cache entry as the record card's: no second request.
  const execution = useExecutionQuery(profileId, id).data
  return (
    <div className="space-y-6">
      <p>
        <Link href="/executions" className="text-sm text-blue-700 underline">
          ← All executions
        </Link>
      </p>
      <h1 className="text-2xl font-semibold">Execution</h1>
      {story ? <RecordLinks profileId={profileId} quoteId={execution?.quote_id} /> : null}
      <ExecutionRecordCard profileId={profileId} id={id} profileName={profileName} title="Quote execution" />
      {story ? <RecordStory recordId={id} record={execution ?? null} /> : null}
    </div>
  )
}
