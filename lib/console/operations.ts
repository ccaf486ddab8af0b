import "server-only"
import type { Staff } from "@/lib/auth/roles"
import { notCancellable, refIdReused } from "@/lib/problem"
import { failureOutcome, openIntent, sameRequest, settleIntent } from "@/lib/console/intents"
import type { Db } from "@/lib/db/client"
import type { ConsoleIntent, IntentOperation } from "@/lib/db/schema"
import { log } from "@/lib/log"
import type { ConversionCreate } from "@/lib/schemas/conversion"
import type { QuoteExecutionCreate } from "@/lib/schemas/quote-execution"
import type { Conversion, QuoteExecution } from "@/lib/schemas/records"
import type { ConversionsApi } from "@/lib/schemas/constants"
import type { UpstreamClient } from "@/lib/upstream"

/**
 * A create's intent its caller has just written (PENDING, this request, this ref_id) in
 * the same step that checked the limits: the placement sends under it and does not write
 * it again. Without one, the placement writes the intent itself (or finds it).
 */
export interface PlaceOptions {
  intent?: ConsoleIntent | undefined
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
  const placed = run().finally(() => table.delete(key))
  table.set(key, { request, placed })
  return placed
}

/** The caller's freshly written intent, checked to be this create's own. */
function writtenIntent(intent: ConsoleIntent, input: { operation: IntentOperation; refId: string }): ConsoleIntent {
  if (intent.operation !== input.operation || intent.refId !== input.refId || intent.state !== "PENDING") {
    throw new Error(`intent ${intent.id} is not the PENDING ${input.operation} of ref_id ${input.refId}`)
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
    /** The conversion API a conversion goes to; none for executions. */
    upstreamApi?: ConversionsApi
    /** `api`: the conversion API of the intent (a retry goes where the first attempt went). */
    create: (api: ConversionsApi | undefined) => Promise<{ record: T; replayed: boolean; attempts: number }>
    fetchExisting: (id: string, api: ConversionsApi | undefined) => Promise<T>
  },
  options: PlaceOptions = {},
): Promise<Placed<T>> {
  const { intent, created } = options.intent ? { intent: writtenIntent(options.intent, input), created: true } : await openIntent(deps.db, input)
  const api = (intent.upstreamApi as ConversionsApi | null) ?? input.upstreamApi
  if (!created) {
    if (!sameRequest(intent.request, input.request)) throw refIdReused(input.refId)
    if (intent.state === "SUCCEEDED" && intent.recordId) {
      return { record: await input.fetchExisting(intent.recordId, api), replayed: true, intentId: intent.id }
    }
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
  options: PlaceOptions = {},
): Promise<Placed<QuoteExecution>> {
  const request = { profile_id: profileId, ...body }
  return coalesce(deps, `create_execution:${body.ref_id}`, body.ref_id, request, () =>
    placeCreate(
      deps,
      {
        staff,
        operation: "create_execution",
        profileId,
        refId: body.ref_id,
        request,
        create: () => deps.upstream.createQuoteExecution(profileId, body),
        fetchExisting: (id) => deps.upstream.getQuoteExecution(profileId, id),
      },
      options,
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
  options: PlaceOptions = {},
): Promise<Placed<Conversion>> {
  return coalesce(deps, `create_conversion:${body.ref_id}`, body.ref_id, body, async () =>
    placeCreate(
      deps,
      {
        staff,
        operation: "create_conversion",
        profileId: body.profile_id,
        refId: body.ref_id,
        request: body,
        // A written intent names its API already (a retry goes where it went).
        upstreamApi: options.intent?.upstreamApi ? undefined : await deps.upstream.conversionsApi(),
        create: (api) => conversionsOf(deps, api).createConversion(body),
        fetchExisting: (id, api) => conversionsOf(deps, api).getConversion(id),
      },
      options,
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
