"use client"

import { CONVERSION_DECIMALS } from "@/lib/format"
import { Amount } from "@/components/ui/amount"
import { StatusBadge } from "@/components/ui/badge"
import { Timestamp } from "@/components/ui/timestamp"
import { useProfilesQuery } from "@/lib/queries/profiles"
import type { SearchMatch } from "@/lib/schemas/search"
import { KIND_WORDS, MATCHED_BY_WORDS } from "./format"

/** A profile's nickname when the console knows it, else a short form of its id. */
export function useProfileName(profileId: string | null): string | null {
  const profiles = useProfilesQuery()
  if (!profileId) return null
  return profiles.data?.find((p) => p.id === profileId)?.nickname ?? `${profileId.slice(0, 8)}…`
}

/** One match in a line or two: type, what it is, profile, amount, status and time. */
export function MatchLine({ match }: { match: SearchMatch }) {
  const profile = useProfileName(match.profile_id)
  return (
    <span className="block" data-testid="search-match">
      <span className="flex flex-wrap items-center gap-x-2">
        <span className="font-semibold text-slate-900">{KIND_WORDS[match.kind]}</span>
        <span>{match.summary}</span>
        {match.status ? <StatusBadge status={match.status} /> : null}
      </span>
      <span className="flex flex-wrap gap-x-3 text-xs text-slate-700">
        {profile && match.kind !== "profile" ? <span>Profile {profile}</span> : null}
        {match.amount ? <Amount value={match.amount.value} asset={match.amount.asset} places={match.kind === "conversion" ? CONVERSION_DECIMALS : undefined} /> : null}
        {match.time ? <Timestamp value={match.time} /> : null}
        <span>by {MATCHED_BY_WORDS[match.matched_by]}</span>
      </span>
    </span>
  )
}
