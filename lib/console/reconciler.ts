import "server-only"
import { and, asc, inArray, lt } from "drizzle-orm"
import { type IntentOutcome, failureOutcome, settleIntent } from "@/lib/console/intents"
import { notifyOutcomeUnknown, resolveOutcomeUnknown } from "@/lib/console/notify/orders"
import type { ConsoleDeps } from "@/lib/console/operations"
import { type ConsoleIntent, consoleIntents } from "@/lib/db/schema"
import { throughMillisecond } from "@/lib/db/time"
import { env } from "@/lib/env"
import { log } from "@/lib/log"
import { consoleProblemBody } from "@/lib/problem"
import type { ReconcileReport } from "@/lib/schemas/audit"
import { conversionCreateSchema } from "@/lib/schemas/conversion"
import { PROBLEM_TYPE_BASE, type ServiceProblemCode } from "@/lib/schemas/problem"
import { quoteExecutionCreateSchema } from "@/lib/schemas/quote-execution"
import type { QuoteExecution } from "@/lib/schemas/records"
import { isUpstreamError, RateLimitedError, UpstreamConfigError } from "@/lib/upstream"
import { isSameConversion, isSameQuoteExecution } from "@/lib/upstream/matching"

/**
 * Learns the outcome of every PENDING or UNKNOWN intent older than `olderThanMs`
 * (RECONCILE_AFTER_MS, 30 s by default: younger ones are left to their own request) by asking
 * the service with the same ref_id: the record is looked up first (conversions by ref_id,
 * executions by paging the profile's executions since the intent); when none is found the
 * create is sent again with the same ref_id (409 Already Exists names the record if the
 * first arrived meanwhile; otherwise it is placed or refused now); a cancel is checked on
 * the conversion itself.
 * An intent whose outcome still can't be learned (service unreachable) stays UNKNOWN.
 */
export async function reconcileIntents(
  deps: ConsoleDeps,
  options: { olderThanMs?: number; limit?: number; now?: () => Date } = {},
): Promise<ReconcileReport> {
  const now = options.now?.() ?? new Date()
  const intents = await deps.db
    .select()
    .from(consoleIntents)
    .where(
      and(
        inArray(consoleIntents.state, ["PENDING", "UNKNOWN"]),
        // Untouched for at least olderThanMs, counted in whole milliseconds.
        lt(consoleIntents.updatedAt, throughMillisecond(new Date(now.getTime() - (options.olderThanMs ?? env().reconcileAfterMs)))),
      ),
    )
    // Least recently tried first: an intent that stays UNKNOWN moves to the back of the queue.
    .orderBy(asc(consoleIntents.updatedAt))
    .limit(options.limit ?? 500)
  const report: ReconcileReport = { examined: intents.length, resolved: 0, succeeded: 0, failed: 0, unresolved: 0 }
  for (const intent of intents) {
    const outcome = await learnOutcome(deps, intent)
    // Left UNKNOWN: its maker and the admins hear of it, once, with the state it is left in;
    // learned after all: that notification (if any) is resolved, with the state learned.
    await deps.db.transaction(async (tx) => {
      await settleIntent(tx, intent.id, outcome)
      const at = new Date()
      if (outcome.state === "UNKNOWN") await notifyOutcomeUnknown(tx, intent, at)
      else if (intent.state === "UNKNOWN") await resolveOutcomeUnknown(tx, intent.id, outcome.state, at)
    })
    if (outcome.state === "SUCCEEDED") report.succeeded += 1
    if (outcome.state === "FAILED") report.failed += 1
    if (outcome.state === "UNKNOWN") report.unresolved += 1
    else report.resolved += 1
  }
  if (report.examined > 0) log.info("reconciler.ran", { ...report })
  return report
}

/** How far before the intent's row a record may carry an earlier clock (clock skew). */
const LOOKUP_SLACK_MS = 5 * 60_000
const LOOKUP_MAX_PAGES = 50

/**
 * The service has no ref_id filter for executions: page through the profile's executions
 * created since just before the intent was written, oldest first, and match the ref_id.
 */
async function findExecutionByRefId(
  deps: ConsoleDeps,
  profileId: string,
  refId: string,
  since: Date,
): Promise<QuoteExecution | null> {
  const begin = new Date(since.getTime() - LOOKUP_SLACK_MS).toISOString()
  let cursor: string | undefined
  for (let page = 0; page < LOOKUP_MAX_PAGES; page++) {
    const found = await deps.upstream.listQuoteExecutions(profileId, {
      "created_at.begin": begin,
      order: "ASC",
      limit: 1000,
      page_cursor: cursor,
    })
    const match = found.items.find((e) => e.ref_id === refId)
    if (match) return match
    cursor = found.next_page_cursor || undefined
    if (!cursor) return null
  }
  throw new Error(`more than ${LOOKUP_MAX_PAGES * 1000} executions since the intent; look-up stopped`)
}

/** The conversion API an intent went to; stablecoin conversions for intents written before it was recorded. */
function conversionsOf(deps: ConsoleDeps, intent: ConsoleIntent) {
  return deps.upstream.conversionsVia(intent.upstreamApi === "orchestrations" ? "orchestrations" : "stablecoin-conversions")
}

/** A look-up that could not be made proves nothing either way. */
class LookupFailed extends Error {
  constructor(readonly reason: unknown) {
    super("look-up failed")
  }
}

async function lookUp<T>(find: () => Promise<T>): Promise<T> {
  try {
    return await find()
  } catch (error) {
    throw new LookupFailed(error)
  }
}

/** Our ref_id on someone else's record: this intent's request was refused as Already Exists. */
function refIdTaken(kind: string, existing: { id: string }): IntentOutcome {
  return {
    state: "FAILED",
    attempts: 1,
    problem: {
      type: `${PROBLEM_TYPE_BASE}already-exists`,
      title: "Already Exists",
      status: 409,
      code: "already_exists" satisfies ServiceProblemCode,
      detail: `the ref_id belongs to another ${kind} (${existing.id})`,
      meta: { existing },
    },
  }
}

async function learnOutcome(deps: ConsoleDeps, intent: ConsoleIntent): Promise<IntentOutcome> {
  try {
    switch (intent.operation) {
      case "create_execution": {
        const { profile_id: profileId, ...rest } = intent.request
        const body = quoteExecutionCreateSchema.parse(rest)
        if (typeof profileId !== "string" || !body.ref_id) throw new Error("intent request lacks profile_id or ref_id")
        // Look first: a service that checks the quote's expiry before the ref_id would refuse
        // a create sent again as Expired even though the first one was placed.
        const refId = body.ref_id
        const existing = await lookUp(() => findExecutionByRefId(deps, profileId, refId, intent.createdAt))
        if (existing) {
          if (!isSameQuoteExecution(profileId, body, existing)) return refIdTaken("execution", existing)
          return { state: "SUCCEEDED", recordId: existing.id, recordStatus: existing.status, attempts: 1 }
        }
        const result = await deps.upstream.createQuoteExecution(profileId, { ...body, ref_id: refId })
        return { state: "SUCCEEDED", recordId: result.record.id, recordStatus: result.record.status, attempts: result.attempts + 1 }
      }
      case "create_conversion": {
        const body = conversionCreateSchema.parse(intent.request)
        const refId = body.ref_id
        if (!refId) throw new Error("intent request lacks ref_id")
        // Through the API the intent went to, whichever is in use now.
        const conversions = conversionsOf(deps, intent)
        const found = await lookUp(() => conversions.listConversions({ ref_id: refId, profile_id: body.profile_id, limit: 1 }))
        const existing = found.items[0]
        if (existing) {
          if (!isSameConversion(body, existing)) return refIdTaken("conversion", existing)
          return { state: "SUCCEEDED", recordId: existing.id, recordStatus: existing.status, attempts: 1 }
        }
        const result = await conversions.createConversion({ ...body, ref_id: refId })
        return { state: "SUCCEEDED", recordId: result.record.id, recordStatus: result.record.status, attempts: result.attempts + 1 }
      }
      case "cancel_conversion": {
        const conversionId = intent.targetId
        if (!conversionId) throw new Error("cancel intent lacks the conversion's id")
        const conversion = await lookUp(() => conversionsOf(deps, intent).getConversion(conversionId))
        if (conversion.status === "CANCELLED") {
          return { state: "SUCCEEDED", recordId: conversion.id, recordStatus: conversion.status, attempts: 1, profileId: conversion.profile_id }
        }
        return { state: "FAILED", attempts: 1, problem: { ...consoleProblemBody("state_conflict", `the conversion was not cancelled; it is ${conversion.status}`) } }
      }
      case "update_policy":
      case "replay_event":
      case "take_snapshot":
      case "update_notifications":
        // Written SUCCEEDED (or FAILED) once done, never PENDING: nothing to learn.
        throw new Error(`${intent.operation} has no outcome to learn`)
    }
  } catch (error) {
    const cause = error instanceof LookupFailed ? error.reason : error
    if (!isUpstreamError(cause)) log.error("reconciler.intent_failed", { intentId: intent.id, error: String(cause) })
    const outcome = failureOutcome(cause)
    // Only the service's own answer to the request settles it; a look-up that failed, a
    // refused token or the console's own rate limit says nothing about the record.
    const learned = !(error instanceof LookupFailed) && !(cause instanceof UpstreamConfigError) && !(cause instanceof RateLimitedError)
    return outcome.state === "FAILED" && !learned ? { ...outcome, state: "UNKNOWN" } : outcome
  }
}
