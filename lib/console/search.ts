import "server-only"
import { type SQL, desc, eq, or, sql } from "drizzle-orm"
import { isUuid } from "@/lib/schemas/common"
import type { Db } from "@/lib/db/client"
import { type ConsoleIntent, consoleIntents } from "@/lib/db/schema"
import { log } from "@/lib/log"
import { CONVERSIONS_APIS, type ConversionsApi } from "@/lib/schemas/constants"
import type { Conversion, Profile, QuoteExecution } from "@/lib/schemas/records"
import type { SearchMatch, SearchResult, SearchSource, SearchSourceReport } from "@/lib/schemas/search"
import { conversionPath, executionPath } from "@/lib/record-paths"
import {
  RateLimitedError,
  UpstreamProblemError,
  UpstreamTimeoutError,
  UpstreamUnavailableError,
  type UpstreamClient,
} from "@/lib/upstream"

/** At most this many calls to the service per search, whatever was pasted. */
export const SEARCH_MAX_SERVICE_CALLS = 10
/** Records the intent log found, fetched fresh from the service for their status (within the bound). */
export const SEARCH_MAX_REFRESHES = 3
/** The Orchestrations API has no ref_id filter: a search reads at most this many pages of 1,000. */
export const SEARCH_ORCHESTRATION_PAGES = 2
/** Intents read per search, newest first. */
const INTENT_LOG_LIMIT = 20

/** An id the service could take in a path: what the console's own path check allows. */
const ID_SHAPED = /^[A-Za-z0-9._:-]{1,128}$/

export type SearchUpstream = Pick<
  UpstreamClient,
  "listProfiles" | "getConversion" | "listConversions" | "getQuoteExecution" | "conversionsApi" | "conversionsVia"
>

export interface SearchDeps {
  db: Db
  upstream: SearchUpstream
}

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
class Budget {
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

function isConversionsApi(value: unknown): value is ConversionsApi {
  return (CONVERSIONS_APIS as readonly unknown[]).includes(value)
}

function text(value: unknown): string | null {
  return typeof value === "string" && value !== "" ? value : null
}

function executionMatch(e: QuoteExecution, matchedBy: SearchMatch["matched_by"], foundIn: SearchMatch["found_in"], intentId: string | null): SearchMatch {
  return {
    kind: "execution",
    id: e.id,
    matched_by: matchedBy,
    found_in: foundIn,
    href: executionPath(e.profile_id, e.id),
    profile_id: e.profile_id,
    summary: `${e.side} ${e.market}`,
    amount: { value: e.base_amount, asset: e.base_asset },
    status: e.status,
    time: e.created_at,
    intent_id: intentId,
  }
}

function conversionMatch(c: Conversion, matchedBy: SearchMatch["matched_by"], foundIn: SearchMatch["found_in"], intentId: string | null): SearchMatch {
  return {
    kind: "conversion",
    id: c.id,
    matched_by: matchedBy,
    found_in: foundIn,
    href: conversionPath(c.id),
    profile_id: c.profile_id ?? null,
    summary: `${c.source_asset ?? "?"} → ${c.target_asset ?? "?"}`,
    amount: c.amount ? { value: c.amount, asset: c.source_asset ?? null } : null,
    status: c.status,
    time: c.created_at ?? null,
    intent_id: intentId,
  }
}

function profileMatch(p: Profile): SearchMatch {
  return {
    kind: "profile",
    id: p.id,
    matched_by: "id",
    found_in: "service",
    // No profile page: the executions page, with this profile chosen (the client chooses it).
    href: "/executions",
    profile_id: p.id,
    summary: p.nickname,
    amount: null,
    status: null,
    time: null,
    intent_id: null,
  }
}

const OPERATION_WORDS: Record<string, string> = {
  create_execution: "Quote execution",
  create_conversion: "Conversion",
  cancel_conversion: "Cancel of a conversion",
  update_policy: "Approval policy change",
}

/** What the intent log alone says about an intent that q names. */
function intentMatch(intent: ConsoleIntent, q: string): SearchMatch | null {
  const matchedBy: SearchMatch["matched_by"] =
    intent.id === q
      ? "intent_id"
      : intent.refId === q
        ? "ref_id"
        : intent.recordId === q
          ? "id"
          : intent.targetId === q
            ? "target_id"
            : "quote_id"
  const request = intent.request
  const amountValue = text(request.base_amount) ?? text(request.quote_amount) ?? text(request.amount)
  const base = {
    matched_by: matchedBy,
    found_in: "intent_log" as const,
    profile_id: intent.profileId,
    status: intent.recordStatus ?? intent.state,
    time: intent.createdAt.toISOString(),
    intent_id: intent.id,
  }
  // A pasted intent id names the intent: its page tells the whole story and links the record.
  if (matchedBy !== "intent_id") {
    if (intent.operation === "create_execution" && intent.state === "SUCCEEDED" && intent.recordId && intent.profileId) {
      return {
        ...base,
        kind: "execution",
        id: intent.recordId,
        href: executionPath(intent.profileId, intent.recordId),
        summary: "Quote execution",
        amount: amountValue ? { value: amountValue, asset: null } : null,
      }
    }
    if (intent.operation === "create_conversion" && intent.state === "SUCCEEDED" && intent.recordId) {
      return {
        ...base,
        kind: "conversion",
        id: intent.recordId,
        href: conversionPath(intent.recordId),
        summary: `${text(request.source_asset) ?? "?"} → ${text(request.target_asset) ?? "?"}`,
        amount: amountValue ? { value: amountValue, asset: text(request.source_asset) } : null,
      }
    }
    // A cancel names the conversion it acted on: the conversion is what was asked for.
    if (intent.operation === "cancel_conversion" && intent.targetId === q) {
      return { ...base, kind: "conversion", id: q, matched_by: "id", href: conversionPath(q), summary: "Conversion", amount: null }
    }
    // The policy's intents all carry target "policy": not something a person pastes.
    if (intent.operation === "update_policy") return null
  }
  return {
    ...base,
    kind: "intent",
    id: intent.id,
    href: `/intents/${intent.id}`,
    summary: `${OPERATION_WORDS[intent.operation] ?? intent.operation} (${intent.state.toLowerCase().replace("_", " ")})`,
    amount: amountValue ? { value: amountValue, asset: text(request.source_asset) } : null,
  }
}

/** The intents q names: by ref_id, record id, cancel target, quote id in the request, or the intent's own id. */
async function searchIntentLog(db: Db, q: string): Promise<ConsoleIntent[]> {
  const where: SQL[] = [
    eq(consoleIntents.refId, q),
    eq(consoleIntents.recordId, q),
    eq(consoleIntents.targetId, q),
    sql`${consoleIntents.request} ->> 'quote_id' = ${q}`,
  ]
  if (isUuid(q)) where.push(eq(consoleIntents.id, q))
  return db
    .select()
    .from(consoleIntents)
    .where(or(...where))
    .orderBy(desc(consoleIntents.createdAt), desc(consoleIntents.id))
    .limit(INTENT_LOG_LIMIT)
}

/**
 * Finds what a pasted string is: an execution, a conversion, a console intent or a profile.
 *
 * The console's intent log is read first (one database query): it knows every record the
 * console placed by id, ref_id and quote id, including executions, which the service cannot
 * list by ref_id. Records found there are fetched fresh for their status (at most
 * SEARCH_MAX_REFRESHES). Only when the intent log knows nothing is the service asked: the
 * profiles (one call), a conversion by id (one) and by ref_id (one, or a few pages on the
 * Orchestrations API), then an execution by id in each profile while calls are left. Never
 * more than SEARCH_MAX_SERVICE_CALLS calls. Every match is something a source answered
 * with; a source that failed is named, and the answer is marked partial, never a 500.
 */
export async function searchAnything(deps: SearchDeps, q: string): Promise<SearchResult> {
  const budget = new Budget(SEARCH_MAX_SERVICE_CALLS)
  const sources: SearchSourceReport[] = []
  const report = (source: SearchSource, state: SearchSourceReport["state"], detail: string) => sources.push({ source, state, detail })
  const matches = new Map<string, SearchMatch>()
  const add = (m: SearchMatch) => {
    const key = `${m.kind}:${m.id}`
    if (!matches.has(key)) matches.set(key, m)
  }
  let partial = false

  // 1. The intent log.
  let intents: ConsoleIntent[] = []
  try {
    intents = await searchIntentLog(deps.db, q)
    report("intent_log", "searched", "ref_ids, record ids, quote ids and intent ids of everything this console sent")
  } catch (error) {
    partial = true
    log.warn("search.intent_log_failed", { error: error instanceof Error ? error.name : "unknown" })
    report("intent_log", "failed", "the console's database did not answer")
  }
  for (const intent of intents) {
    const m = intentMatch(intent, q)
    if (m) add(m)
  }

  // 2. Records the intent log found, fresh from the service.
  const placed = [...matches.values()].filter((m) => (m.kind === "execution" || m.kind === "conversion") && m.found_in === "intent_log")
  if (placed.length > 0) {
    const refreshed = await refreshRecords(deps, intents, placed.slice(0, SEARCH_MAX_REFRESHES), budget)
    for (const m of refreshed.matches) matches.set(`${m.kind}:${m.id}`, m)
    if (refreshed.failed) partial = true
    report("service_records", refreshed.failed ? "failed" : "searched", refreshed.detail)
  }

  // 3. The service, only when the intent log had no answer.
  if (matches.size > 0) {
    const why = "not asked: the intent log already found it"
    report("service_profiles", "skipped", why)
    report("service_conversions", "skipped", why)
    report("service_executions", "skipped", why)
  } else {
    const found = await searchService(deps, q, budget, report)
    for (const m of found.matches) add(m)
    if (found.partial) partial = true
  }

  return { q, matches: [...matches.values()], sources, partial, service_calls: budget.used }
}

async function refreshRecords(
  deps: SearchDeps,
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
        const e = await budget.call(() => deps.upstream.getQuoteExecution(profileId, m.id))
        out.push({ ...executionMatch(e, m.matched_by, "intent_log", m.intent_id) })
      } else if (m.kind === "conversion") {
        const api = intents.find((i) => i.recordId === m.id || i.targetId === m.id)?.upstreamApi
        const via = isConversionsApi(api) ? deps.upstream.conversionsVia(api) : deps.upstream
        const c = await budget.call(() => via.getConversion(m.id))
        out.push({ ...conversionMatch(c, m.matched_by, "intent_log", m.intent_id) })
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

async function searchService(
  deps: SearchDeps,
  q: string,
  budget: Budget,
  report: (source: SearchSource, state: SearchSourceReport["state"], detail: string) => void,
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
      const page = await budget.call(() => deps.upstream.listProfiles())
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
    report("service_executions", "skipped", "not asked: it is a profile id")
    return { matches, partial }
  }

  // Conversions: by id, then by ref_id, on the conversion API in use.
  const conversions = await searchConversions(deps, q, idShaped, budget)
  matches.push(...conversions.matches)
  if (conversions.partial) partial = true
  report("service_conversions", conversions.state, conversions.detail)
  if (conversions.matches.length > 0) {
    report("service_executions", "skipped", "not asked: it is a conversion")
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
        const e = await budget.call(() => deps.upstream.getQuoteExecution(profile.id, q))
        matches.push(executionMatch(e, "id", "service", null))
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

async function searchConversions(deps: SearchDeps, q: string, idShaped: boolean, budget: Budget): Promise<SourceAnswer> {
  if (budget.left <= 0) {
    return { matches: [], state: "skipped", detail: budget.down ? "not asked: the service failed just before" : "not asked: no calls left", partial: true }
  }
  let api: ConversionsApi
  try {
    api = await deps.upstream.conversionsApi()
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
        const c = await budget.call(() => deps.upstream.getConversion(q))
        if (c.id === q) return searched([conversionMatch(c, "id", "service", null)])
      } catch (error) {
        if (!isAbsent(error)) throw error
      }
    }
    if (budget.left <= 0) return searched([], true, " (ref_id not asked: no calls left)")
    asked.push("ref_id")
    if (api === "orchestrations") {
      // No ref_id filter there: read a few pages and match exactly.
      let cursor: string | undefined
      for (let n = 0; n < SEARCH_ORCHESTRATION_PAGES && budget.left > 0; n++) {
        const page = await budget.call(() => deps.upstream.listConversions({ limit: 1000, page_cursor: cursor }))
        const found = page.items.find((c) => c.ref_id === q)
        if (found) return searched([conversionMatch(found, "ref_id", "service", null)])
        cursor = page.next_page_cursor
        if (!cursor) return searched([])
      }
      return searched([], true, ` (ref_id: only the newest ${SEARCH_ORCHESTRATION_PAGES * 1000} orchestrations)`)
    }
    const page = await budget.call(() => deps.upstream.listConversions({ ref_id: q, limit: 1 }))
    const found = page.items.find((c) => c.ref_id === q)
    return searched(found ? [conversionMatch(found, "ref_id", "service", null)] : [])
  } catch (error) {
    return { matches: [], state: "failed", detail: `${asked.join(" and ")} on ${api}: ${failureWords(error)}`, partial: true }
  }
}
