import "server-only"
import type { ConsoleIntent } from "@/lib/db/schema"
import { conversionMatch, executionMatch, profileMatch, transferMatch } from "@/lib/console/search-matches"
import { type ConversionsApi, isConversionsApi } from "@/lib/schemas/constants"
import type { Profile } from "@/lib/schemas/records"
import type { SearchMatch, SearchSource, SearchSourceReport } from "@/lib/schemas/search"
import {
  RateLimitedError,
  type UpstreamClient,
  UpstreamProblemError,
  UpstreamTimeoutError,
  UpstreamUnavailableError,
} from "@/lib/upstream"

/** The service's side of a search: a bounded number of calls, each failure named. */

/** At most this many calls to the service per search, whatever was pasted. */
export const SEARCH_MAX_SERVICE_CALLS = 10
/** Records the intent log found, fetched fresh from the service for their status (within the bound). */
export const SEARCH_MAX_REFRESHES = 3

/** An id the service could take in a path: what the console's own path check allows. */
const ID_SHAPED = /^[A-Za-z0-9._:-]{1,128}$/

const BY_ID = { matched_by: "id", found_in: "service", intent_id: null } as const
const BY_REF_ID = { matched_by: "ref_id", found_in: "service", intent_id: null } as const
const BY_TX_HASH = { matched_by: "tx_hash", found_in: "service", intent_id: null } as const

/** Long enough to be a crypto transaction hash (Bitcoin's and Ethereum's are 64 hex digits, Solana's about 88 characters). */
const TX_HASH_MIN = 32

export type SearchUpstream = Pick<
  UpstreamClient,
  "listProfiles" | "getConversion" | "listConversions" | "getQuoteExecution" | "conversionsApi" | "conversionsVia" | "getTransfer" | "listTransfers"
>

export type Report = (source: SearchSource, state: SearchSourceReport["state"], detail: string) => void

/** The service's answer "there is no such thing" (404, or 400 for something not even id-shaped). */
function isAbsent(error: unknown): boolean {
  return error instanceof UpstreamProblemError && (error.status === 404 || error.status === 400)
}

/** A failure that says the whole service is out of reach: asking it more would only wait longer. */
function isServiceDown(error: unknown): boolean {
  return error instanceof UpstreamUnavailableError || error instanceof UpstreamTimeoutError || error instanceof RateLimitedError
}

function failureWords(error: unknown): string {
  if (error instanceof UpstreamProblemError) return `the service answered ${error.status} ${error.title}`
  if (error instanceof UpstreamTimeoutError) return "the service did not answer in time"
  if (error instanceof RateLimitedError) return "the service's rate limit was reached"
  if (error instanceof UpstreamUnavailableError) return "the service could not be reached"
  return "the call failed"
}

/** Counts service calls against the bound; a search that runs out says so. */
export class Budget {
  used = 0
  down = false
  constructor(readonly max: number) {}
  get left(): number {
    return this.down ? 0 : this.max - this.used
  }
  async call<T>(run: () => Promise<T>): Promise<T> {
    this.used++
    try {
      return await run()
    } catch (error) {
      if (isServiceDown(error)) this.down = true
      throw error
    }
  }
}

export async function refreshRecords(
  upstream: SearchUpstream,
  intents: ConsoleIntent[],
  placed: SearchMatch[],
  budget: Budget,
): Promise<{ matches: SearchMatch[]; failed: boolean; detail: string }> {
  const out: SearchMatch[] = []
  let failed: string | null = null
  for (const m of placed) {
    if (budget.left <= 0) break
    try {
      if (m.kind === "execution" && m.profile_id) {
        const profileId = m.profile_id
        const e = await budget.call(() => upstream.getQuoteExecution(profileId, m.id))
        out.push(executionMatch(e, { matched_by: m.matched_by, found_in: "intent_log", intent_id: m.intent_id }))
      } else if (m.kind === "conversion") {
        const api = intents.find((i) => i.recordId === m.id || i.targetId === m.id)?.upstreamApi
        const via = isConversionsApi(api) ? upstream.conversionsVia(api) : upstream
        const c = await budget.call(() => via.getConversion(m.id))
        out.push(conversionMatch(c, { matched_by: m.matched_by, found_in: "intent_log", intent_id: m.intent_id }))
      }
    } catch (error) {
      // The intent log's own facts stand; only the fresh status is missing.
      if (!isAbsent(error)) failed ??= failureWords(error)
    }
  }
  return {
    matches: out,
    failed: failed !== null,
    detail: failed ? `could not fetch the current status: ${failed}; the status shown is the one the console recorded` : "current status of the records the intent log found",
  }
}

export async function searchService(
  upstream: SearchUpstream,
  q: string,
  budget: Budget,
  report: Report,
): Promise<{ matches: SearchMatch[]; partial: boolean }> {
  const matches: SearchMatch[] = []
  let partial = false
  const idShaped = ID_SHAPED.test(q)
  const skippedDown = "not asked: the service failed just before"

  // Profiles: one page, which also says which profiles to probe for an execution.
  let profiles: Profile[] = []
  if (!idShaped) {
    report("service_profiles", "skipped", "not asked: ids are letters, digits and . _ : - only")
  } else {
    try {
      const page = await budget.call(() => upstream.listProfiles())
      profiles = page.items
      const profile = profiles.find((p) => p.id === q)
      if (profile) matches.push(profileMatch(profile))
      report("service_profiles", "searched", `profile ids (${profiles.length} profiles${page.next_page_cursor ? ", first page" : ""})`)
      if (page.next_page_cursor) partial = true
    } catch (error) {
      partial = true
      report("service_profiles", "failed", `profile ids: ${failureWords(error)}`)
    }
  }
  if (matches.length > 0) {
    report("service_conversions", "skipped", "not asked: it is a profile id")
    report("service_transfers", "skipped", "not asked: it is a profile id")
    report("service_executions", "skipped", "not asked: it is a profile id")
    return { matches, partial }
  }

  // Conversions: by id, then by ref_id, on the conversion API in use.
  const conversions = await searchConversions(upstream, q, idShaped, budget)
  matches.push(...conversions.matches)
  if (conversions.partial) partial = true
  report("service_conversions", conversions.state, conversions.detail)
  if (conversions.matches.length > 0) {
    report("service_transfers", "skipped", "not asked: it is a conversion")
    report("service_executions", "skipped", "not asked: it is a conversion")
    return { matches, partial }
  }

  // Transfers: by id, by ref_id, and a transaction hash among the newest.
  const transfers = await searchTransfers(upstream, q, idShaped, budget)
  matches.push(...transfers.matches)
  if (transfers.partial) partial = true
  report("service_transfers", transfers.state, transfers.detail)
  if (transfers.matches.length > 0) {
    report("service_executions", "skipped", "not asked: it is a transfer")
    return { matches, partial }
  }

  // Executions: the service has no ref_id or quote id filter, and a GET needs the profile.
  if (!idShaped) {
    report("service_executions", "skipped", "not asked: ids are letters, digits and . _ : - only")
  } else if (budget.down) {
    partial = true
    report("service_executions", "skipped", skippedDown)
  } else if (profiles.length === 0) {
    report("service_executions", "skipped", "not asked: no profile to look in")
  } else {
    let probed = 0
    let failure: string | null = null
    for (const profile of profiles) {
      if (budget.left <= 0) break
      probed++
      try {
        const e = await budget.call(() => upstream.getQuoteExecution(profile.id, q))
        matches.push(executionMatch(e, BY_ID))
        break
      } catch (error) {
        if (isAbsent(error)) continue
        failure = failureWords(error)
        if (budget.down) break
      }
    }
    const all = probed === profiles.length || matches.length > 0
    if (failure || !all) partial = true
    const where = `execution id in ${probed} of ${profiles.length} profiles${all ? "" : ` (the bound of ${SEARCH_MAX_SERVICE_CALLS} calls was reached)`}`
    report("service_executions", failure ? "failed" : "searched", failure ? `${where}: ${failure}` : where)
  }
  return { matches, partial }
}

interface SourceAnswer {
  matches: SearchMatch[]
  state: SearchSourceReport["state"]
  detail: string
  /** Matches may be missing (a failure, or a bound that stopped the search). */
  partial: boolean
}

async function searchConversions(upstream: SearchUpstream, q: string, idShaped: boolean, budget: Budget): Promise<SourceAnswer> {
  if (budget.left <= 0) {
    return { matches: [], state: "skipped", detail: budget.down ? "not asked: the service failed just before" : "not asked: no calls left", partial: true }
  }
  let api: ConversionsApi
  try {
    api = await upstream.conversionsApi()
  } catch {
    return { matches: [], state: "failed", detail: "the conversion API in use is not known", partial: true }
  }
  const asked: string[] = []
  const searched = (matches: SearchMatch[], partial = false, note = ""): SourceAnswer => ({
    matches,
    state: "searched",
    detail: `${asked.join(" and ")} on ${api}${note}`,
    partial,
  })
  try {
    if (idShaped) {
      asked.push("id")
      try {
        const c = await budget.call(() => upstream.getConversion(q))
        if (c.id === q) return searched([conversionMatch(c, BY_ID)])
      } catch (error) {
        if (!isAbsent(error)) throw error
      }
    }
    if (budget.left <= 0) return searched([], true, " (ref_id not asked: no calls left)")
    asked.push("ref_id")
    // Both APIs filter by ref_id (the Orchestrations API since its ref_id filter).
    const page = await budget.call(() => upstream.listConversions({ ref_id: q, limit: 1 }))
    const found = page.items.find((c) => c.ref_id === q)
    return searched(found ? [conversionMatch(found, BY_REF_ID)] : [])
  } catch (error) {
    return { matches: [], state: "failed", detail: `${asked.join(" and ")} on ${api}: ${failureWords(error)}`, partial: true }
  }
}

async function searchTransfers(upstream: SearchUpstream, q: string, idShaped: boolean, budget: Budget): Promise<SourceAnswer> {
  if (!idShaped) return { matches: [], state: "skipped", detail: "not asked: ids are letters, digits and . _ : - only", partial: false }
  if (budget.left <= 0) {
    return { matches: [], state: "skipped", detail: budget.down ? "not asked: the service failed just before" : "not asked: no calls left", partial: true }
  }
  const asked: string[] = []
  const searched = (matches: SearchMatch[], partial = false, note = ""): SourceAnswer => ({
    matches,
    state: "searched",
    detail: `transfer ${asked.join(", ")}${note}`,
    partial,
  })
  try {
    asked.push("id")
    try {
      const t = await budget.call(() => upstream.getTransfer(q))
      if (t.id === q) return searched([transferMatch(t, BY_ID)])
    } catch (error) {
      if (!isAbsent(error)) throw error
    }
    if (budget.left <= 0) return searched([], true, " (ref_id not asked: no calls left)")
    asked.push("ref_id")
    const byRef = await budget.call(() => upstream.listTransfers({ ref_ids: [q], limit: 1 }))
    const found = byRef.items.find((t) => t.ref_id === q)
    if (found) return searched([transferMatch(found, BY_REF_ID)])
    if (q.length < TX_HASH_MIN) return searched([])
    if (budget.left <= 0) return searched([], true, " (transaction hash not asked: no calls left)")
    asked.push("transaction hash")
    // Hex hashes are shown in either case: ask for both spellings.
    const hashes = [...new Set([q, q.toLowerCase()])]
    const byHash = await budget.call(() => upstream.listTransfers({ crypto_tx_hashes: hashes, limit: 1 }))
    const found2 = byHash.items.find((t) => t.crypto_tx_hash !== undefined && hashes.includes(t.crypto_tx_hash))
    return searched(found2 ? [transferMatch(found2, BY_TX_HASH)] : [])
  } catch (error) {
    return { matches: [], state: "failed", detail: `transfer ${asked.join(", ")}: ${failureWords(error)}`, partial: true }
  }
}
