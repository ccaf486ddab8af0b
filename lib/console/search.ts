import "server-only"
import { type SQL, desc, eq, or, sql } from "drizzle-orm"
import { intentMatch } from "@/lib/console/search-matches"
import { Budget, SEARCH_MAX_REFRESHES, SEARCH_MAX_SERVICE_CALLS, type SearchUpstream, refreshRecords, searchService } from "@/lib/console/search-service"
import type { Db } from "@/lib/db/client"
import { type ConsoleIntent, consoleIntents } from "@/lib/db/schema"
import { errorKind, log } from "@/lib/log"
import { isUuid } from "@/lib/schemas/common"
import { SEARCH_PREFIX_MIN, type SearchMatch, type SearchResult, type SearchSource, type SearchSourceReport } from "@/lib/schemas/search"

export { SEARCH_MAX_REFRESHES, SEARCH_MAX_SERVICE_CALLS, type SearchUpstream } from "@/lib/console/search-service"

/** Intents read per search, newest first. */
const INTENT_LOG_LIMIT = 20

export interface SearchDeps {
  db: Db
  upstream: SearchUpstream
}

/** The intents q names: by ref_id (a refused create's too), record id, cancel target, quote id in the request, or the intent's own id. */
async function searchIntentLog(db: Db, q: string): Promise<ConsoleIntent[]> {
  const where: SQL[] = [
    eq(consoleIntents.refId, q),
    eq(consoleIntents.recordId, q),
    eq(consoleIntents.targetId, q),
    sql`${consoleIntents.request} ->> 'quote_id' = ${q}`,
    sql`(${consoleIntents.state} = 'REFUSED' and ${consoleIntents.request} ->> 'ref_id' = ${q})`,
  ]
  if (isUuid(q)) where.push(eq(consoleIntents.id, q))
  return db
    .select()
    .from(consoleIntents)
    .where(or(...where))
    .orderBy(desc(consoleIntents.createdAt), desc(consoleIntents.seq))
    .limit(INTENT_LOG_LIMIT)
}

/** What may be the start of an id: 8 or more of the characters ids and ref_ids are made of. */
const PREFIX_SHAPED = new RegExp(`^[A-Za-z0-9._:-]{${SEARCH_PREFIX_MIN},}$`)

/**
 * The intents whose record id, ref_id, cancel target or own id starts with q: a table shows
 * a long id's first 8 characters, and a person pastes what they see. Asked only when
 * nothing is equal to q; newest first, at most INTENT_LOG_LIMIT.
 */
async function searchIntentLogByPrefix(db: Db, q: string): Promise<ConsoleIntent[]> {
  if (!PREFIX_SHAPED.test(q)) return []
  return db
    .select()
    .from(consoleIntents)
    .where(
      or(
        sql`starts_with(${consoleIntents.recordId}, ${q})`,
        sql`starts_with(${consoleIntents.refId}, ${q})`,
        sql`(${consoleIntents.operation} = 'cancel_conversion' and starts_with(${consoleIntents.targetId}, ${q}))`,
        sql`starts_with(${consoleIntents.id}::text, ${q.toLowerCase()})`,
      ),
    )
    .orderBy(desc(consoleIntents.createdAt), desc(consoleIntents.seq))
    .limit(INTENT_LOG_LIMIT)
}

/**
 * Finds what a pasted string is: an execution, a conversion, a console intent or a profile.
 *
 * The console's intent log is read first (one database query): it knows every record the
 * console placed by id, ref_id and quote id, including executions, which the service cannot
 * list by ref_id. Records found there are fetched fresh for their status (at most
 * SEARCH_MAX_REFRESHES). Only when the intent log knows nothing is the service asked: the
 * profiles (one call), a conversion by id (one) and by ref_id (one), a transfer by id,
 * ref_id and (for a q long enough to be one) transaction hash (one each), then an execution by id in each profile while calls are left. Never
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
    if (intents.length === 0) intents = await searchIntentLogByPrefix(deps.db, q)
    report("intent_log", "searched", "ref_ids, record ids, quote ids and intent ids of everything this console sent (or their first 8 or more characters)")
  } catch (error) {
    partial = true
    log.warn("search.intent_log_failed", { error: errorKind(error) })
    report("intent_log", "failed", "the console's database did not answer")
  }
  for (const intent of intents) {
    const m = intentMatch(intent, q)
    if (m) add(m)
  }

  // 2. Records the intent log found, fresh from the service.
  const placed = [...matches.values()].filter((m) => (m.kind === "execution" || m.kind === "conversion") && m.found_in === "intent_log")
  if (placed.length > 0) {
    const refreshed = await refreshRecords(deps.upstream, intents, placed.slice(0, SEARCH_MAX_REFRESHES), budget)
    for (const m of refreshed.matches) matches.set(`${m.kind}:${m.id}`, m)
    if (refreshed.failed) partial = true
    report("service_records", refreshed.failed ? "failed" : "searched", refreshed.detail)
  }

  // 3. The service, only when the intent log had no answer.
  if (matches.size > 0) {
    const why = "not asked: the intent log already found it"
    report("service_profiles", "skipped", why)
    report("service_conversions", "skipped", why)
    report("service_transfers", "skipped", why)
    report("service_executions", "skipped", why)
  } else {
    const found = await searchService(deps.upstream, q, budget, report)
    for (const m of found.matches) add(m)
    if (found.partial) partial = true
  }

  return { q, matches: [...matches.values()], sources, partial, service_calls: budget.used }
}
