import "server-only"
import type { Staff } from "@/lib/auth/roles"
import { failureOutcome, intentByRef, openIntent, sameRequest, settleIntent } from "@/lib/console/intents"
import type { Db } from "@/lib/db/client"
import type { ConsoleIntent, IntentOperation } from "@/lib/db/schema"
import { log } from "@/lib/log"
import { notCancellable, refIdReused } from "@/lib/problem"
import type { ConversionCreate } from "@/lib/schemas/conversion"
import type { QuoteExecutionCreate } from "@/lib/schemas/quote-execution"
import type { Conversion, QuoteExecution } from "@/lib/schemas/records"
import type { ConversionsApi } from "@/lib/schemas/constants"
import type { UpstreamClient } from "@/lib/upstream"
import { inSpan } from "@/lib/tracing"

/**
 * Where the intent a create is placed under comes from: the one its admission has just
 * written (`created`: PENDING, this request, this ref_id), or the one its ref_id already
 * has (a retry, an approved request). Placement never writes an intent; it asks for this
 * one once it starts, after joining any identical submission in flight.
 */
export type IntentSource = () => Promise<{ intent: ConsoleIntent; created: boolean }>

/** The intent its admission has just written. */
export function writtenIntent(intent: ConsoleIntent): IntentSource {
  return () => Promise.resolve({ intent, created: true })
}

/** The intent a create's ref_id already has, read when the placement starts. */
export function intentOfRef(db: Db, operation: "create_execution" | "create_conversion", refId: string): IntentSource {
  return async () => {
    const intent = await intentByRef(db, operation, refId)
    if (!intent) throw new Error(`no ${operation} intent has ref_id ${refId}: a create is admitted before it is placed`)
    return { intent, created: false }
  }
}

/** What the console's operations need: the database and the service. */
export interface ConsoleDeps {
  db: Db
  upstream: UpstreamClient
}

export interface Placed<T> {
  record: T
  /** The record already existed: a retry or double submission of the same ref_id. */
  replayed: boolean
  intentId: string
}

// Identical submissions in flight in one console instance share one call to the service;
// across instances the intent's unique ref_id and the service's own ref_id check take over.
// Keyed by the deps (one per instance) so that tests can stand up several instances.
interface InFlight {
  request: Record<string, unknown>
  placed: Promise<Placed<unknown>>
}
const inFlightByDeps = new WeakMap<ConsoleDeps, Map<string, InFlight>>()

/**
 * Joins a submission already in flight with the same key, or starts one. A joiner whose
 * request differs from the one in flight is refused like a sequential reuse of the ref_id.
 */
function coalesce<T>(
  deps: ConsoleDeps,
  key: string,
  refId: string,
  request: Record<string, unknown>,
  run: () => Promise<Placed<T>>,
): Promise<Placed<T>> {
  let inFlight = inFlightByDeps.get(deps)
  if (!inFlight) inFlightByDeps.set(deps, (inFlight = new Map<string, InFlight>()))
  const existing = inFlight.get(key)
  if (existing) {
    if (!sameRequest(existing.request, request)) return Promise.reject(refIdReused(refId))
    return existing.placed as Promise<Placed<T>>
  }
  const table = inFlight
  const placed = inSpan("console.intent.place", { "console.ref_id": refId }, run).finally(() => table.delete(key))
  table.set(key, { request, placed })
  return placed
}

/** The source's intent, checked to be this create's own (and, freshly written, PENDING). */
async function intentToPlace(source: IntentSource, input: { operation: IntentOperation; refId: string }): Promise<ConsoleIntent> {
  const { intent, created } = await source()
  if (intent.operation !== input.operation || intent.refId !== input.refId || (created && intent.state !== "PENDING")) {
    throw new Error(`intent ${intent.id} is not the ${created ? "PENDING " : ""}${input.operation} of ref_id ${input.refId}`)
  }
  return intent
}

async function placeCreate<T extends { id: string; status: string }>(
  deps: ConsoleDeps,
  input: {
    staff: Staff
    operation: IntentOperation
    profileId: string
    refId: string
    request: Record<string, unknown>
    /** The conversion API in use, for an intent that does not name one; none for executions. */
    upstreamApi?: () => Promise<ConversionsApi>
    /** `api`: the conversion API of the intent (a retry goes where the first attempt went). */
    create: (api: ConversionsApi | undefined) => Promise<{ record: T; replayed: boolean; attempts: number }>
    fetchExisting: (id: string, api: ConversionsApi | undefined) => Promise<T>
  },
  intent: ConsoleIntent,
): Promise<Placed<T>> {
  const api = (intent.upstreamApi as ConversionsApi | null) ?? (await input.upstreamApi?.())
  // A fresh intent holds this very request, and a record only once it SUCCEEDED (intentToPlace
  // has checked it is PENDING): both checks are for a retry's or an approval's intent.
  if (!sameRequest(intent.request, input.request)) throw refIdReused(input.refId)
  if (intent.recordId) {
    return { record: await input.fetchExisting(intent.recordId, api), replayed: true, intentId: intent.id }
  }
  let result: { record: T; replayed: boolean; attempts: number }
  try {
    result = await input.create(api)
  } catch (error) {
    await settleIntent(deps.db, intent.id, failureOutcome(error)).catch((dbError: unknown) =>
      log.error("intent.settle_failed", { intentId: intent.id, error: String(dbError) }),
    )
    throw error
  }
  try {
    await settleIntent(deps.db, intent.id, {
      state: "SUCCEEDED",
      recordId: result.record.id,
      recordStatus: result.record.status,
      attempts: result.attempts,
    })
  } catch (dbError) {
    // The record exists; the reconciler will bring the intent up to date.
    log.error("intent.settle_failed", { intentId: intent.id, error: String(dbError) })
  }
  log.info("intent.succeeded", {
    intentId: intent.id,
    operation: input.operation,
    staff: input.staff.email,
    recordId: result.record.id,
    replayed: result.replayed,
    attempts: result.attempts,
  })
  return { record: result.record, replayed: result.replayed, intentId: intent.id }
}

/** Executes a held quote exactly once per ref_id (the caller's: the same one on every retry). */
export function executeQuote(
  deps: ConsoleDeps,
  staff: Staff,
  profileId: string,
  body: QuoteExecutionCreate & { ref_id: string },
  source: IntentSource,
): Promise<Placed<QuoteExecution>> {
  const request = { profile_id: profileId, ...body }
  const key = { operation: "create_execution" as const, refId: body.ref_id }
  return coalesce(deps, `create_execution:${body.ref_id}`, body.ref_id, request, async () =>
    placeCreate(
      deps,
      {
        ...key,
        staff,
        profileId,
        request,
        create: () => deps.upstream.createQuoteExecution(profileId, body),
        fetchExisting: (id) => deps.upstream.getQuoteExecution(profileId, id),
      },
      await intentToPlace(source, key),
    ),
  )
}

/**
 * Creates a stablecoin conversion exactly once per ref_id (the caller's: the same one on
 * every retry), through the conversion API in use; the intent records which one.
 */
export function createConversion(
  deps: ConsoleDeps,
  staff: Staff,
  body: ConversionCreate & { ref_id: string },
  source: IntentSource,
): Promise<Placed<Conversion>> {
  const key = { operation: "create_conversion" as const, refId: body.ref_id }
  return coalesce(deps, `create_conversion:${body.ref_id}`, body.ref_id, body, async () =>
    placeCreate(
      deps,
      {
        ...key,
        staff,
        profileId: body.profile_id,
        request: body,
        // An intent names its API already (a retry goes where it went).
        upstreamApi: () => deps.upstream.conversionsApi(),
        create: (api) => conversionsOf(deps, api).createConversion(body),
        fetchExisting: (id, api) => conversionsOf(deps, api).getConversion(id),
      },
      await intentToPlace(source, key),
    ),
  )
}

function conversionsOf(deps: ConsoleDeps, api: ConversionsApi | undefined) {
  return api === undefined ? deps.upstream : deps.upstream.conversionsVia(api)
}

/** Cancels a pending conversion; the intent records who asked and what the service said. */
export async function cancelConversion(deps: ConsoleDeps, staff: Staff, id: string): Promise<Placed<Conversion>> {
  const upstreamApi = await deps.upstream.conversionsApi()
  if (upstreamApi === "orchestrations") {
    throw notCancellable("Conversions placed through the Orchestrations API cannot be cancelled: the service has no cancel for them.")
  }
  const { intent } = await openIntent(deps.db, {
    upstreamApi,
    staff,
    operation: "cancel_conversion",
    profileId: null,
    targetId: id,
    request: { id },
  })
  try {
    const record = await deps.upstream.cancelConversion(id)
    await settleIntent(deps.db, intent.id, {
      state: "SUCCEEDED",
      recordId: record.id,
      recordStatus: record.status,
      attempts: 1,
      profileId: record.profile_id,
    })
    return { record, replayed: false, intentId: intent.id }
  } catch (error) {
    await settleIntent(deps.db, intent.id, failureOutcome(error)).catch((dbError: unknown) =>
      log.error("intent.settle_failed", { intentId: intent.id, error: String(dbError) }),
    )
    throw error
  }
}
