import type { SearchMatch, SearchResult, SearchSourceReport } from "@/lib/schemas/search"

export const KIND_WORDS: Record<SearchMatch["kind"], string> = {
  execution: "Execution",
  conversion: "Conversion",
  transfer: "Transfer",
  intent: "Console intent",
  profile: "Profile",
}

export const MATCHED_BY_WORDS: Record<SearchMatch["matched_by"], string> = {
  id: "its id",
  ref_id: "its ref_id",
  quote_id: "the quote it used",
  intent_id: "the intent's id",
  target_id: "the record it acted on",
  id_prefix: "the start of its id or ref_id",
  tx_hash: "its transaction hash",
}

export const SOURCE_WORDS: Record<SearchSourceReport["source"], string> = {
  intent_log: "the console's intent log",
  service_records: "the service (current status)",
  service_profiles: "the service's profiles",
  service_conversions: "the service's conversions",
  service_executions: "the service's executions",
  service_transfers: "the service's transfers",
}

/** "the console's intent log, the service's profiles and the service's conversions": what was searched. */
export function searchedWhere(result: SearchResult): string {
  const searched = result.sources.filter((s) => s.state === "searched").map((s) => SOURCE_WORDS[s.source])
  if (searched.length === 0) return "nowhere"
  if (searched.length === 1) return searched[0]!
  return `${searched.slice(0, -1).join(", ")} and ${searched[searched.length - 1]}`
}

/** The sources that failed or could not be finished, in plain words ("" when none). */
export function failedWhere(result: SearchResult): string {
  return result.sources
    .filter((s) => s.state === "failed")
    .map((s) => `${SOURCE_WORDS[s.source]} (${s.detail})`)
    .join("; ")
}
