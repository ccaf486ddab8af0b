"use client"

import Link from "next/link"
import { ExecutionRecordCard } from "@/components/executions/execution-record-card"
import { useProfilesQuery } from "@/lib/queries/profiles"

/** One execution on its own page, polled until it settles. */
export function ExecutionDetail({ profileId, id }: { profileId: string; id: string }) {
  const profiles = useProfilesQuery()
  const profileName = profiles.data?.find((p) => p.id === profileId)?.nickname
  return (
    <div className="space-y-6">
      <p>
        <Link href="/executions" className="text-sm text-blue-700 underline">
          ← All executions
        </Link>
      </p>
      <h1 className="text-2xl font-semibold">Execution</h1>
      <ExecutionRecordCard profileId={profileId} id={id} profileName={profileName} title="Quote execution" />
    </div>
  )
}
