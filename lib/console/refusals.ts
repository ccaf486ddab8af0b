import "server-only"
import { ZodError, type ZodType } from "zod"
import type { Staff } from "@/lib/auth/roles"
import { readJson } from "@/lib/console/http"
import { recordRefusal } from "@/lib/console/intents"
import { validationProblem } from "@/lib/console/with-staff"
import type { Db } from "@/lib/db/client"
import type { IntentOperation } from "@/lib/db/schema"
import { log } from "@/lib/log"
import { HttpProblem } from "@/lib/problem"
import type { Problem } from "@/lib/schemas/problem"

/**
 * Every create the console refuses before sending anything goes on the audit trail: a
 * body that fails validation, an order over a limit, a quote that is no longer held, a
 * ref_id reused for another request. (A create the service refuses is its intent, FAILED.)
 */

export interface RefusedCreate {
  staff: Staff
  operation: Extract<IntentOperation, "create_execution" | "create_conversion">
  profileId: string | null
  request: unknown
  market?: string | null | undefined
  side?: string | null | undefined
  size?: { amount: string; currency: string } | null | undefined
}

/** The problem a refusal was answered with, or null for an error that is not a refusal (a fault). */
export function refusalProblem(error: unknown): Problem | null {
  if (error instanceof ZodError) return validationProblem(error)
  if (error instanceof HttpProblem && error.problem.status >= 400 && error.problem.status < 500) return error.problem
  return null
}

/** JSON the database stores: a NUL (which Postgres text and jsonb refuse) becomes U+FFFD. */
function storable(value: unknown, depth = 0): unknown {
  const clean = (text: string) => text.replaceAll("\u0000", "\uFFFD")
  if (typeof value === "string") return clean(value)
  if (depth > 20 || value === null || typeof value !== "object") return value
  if (Array.isArray(value)) return value.map((v) => storable(v, depth + 1))
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [clean(k), storable(v, depth + 1)]))
}

/** The request as the trail keeps it: an object as sent, anything else under `body`. */
export function asRequest(body: unknown): Record<string, unknown> {
  const value = storable(body)
  if (value && typeof value === "object" && !Array.isArray(value)) return value as Record<string, unknown>
  return { body: value === undefined ? null : value }
}

/** A string field of a body that may be anything. */
function field(body: unknown, ...path: string[]): string | null {
  let value: unknown = body
  for (const key of path) value = value && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined
  return typeof value === "string" ? value.slice(0, 32) : null
}

/**
 * Records `error` as the refusal of `create` when it is one, and hands it back to be
 * thrown. Writing the entry never turns a refusal into a fault: a failure to write is logged.
 */
export async function refused(db: Db, create: RefusedCreate, error: unknown, at = new Date()): Promise<unknown> {
  const problem = refusalProblem(error)
  if (!problem) return error
  try {
    await recordRefusal(db, {
      staff: create.staff,
      operation: create.operation,
      profileId: create.profileId,
      request: asRequest(create.request),
      problem,
      at,
      market: create.market ?? field(create.request, "reviewed_quote", "market"),
      side: create.side ?? field(create.request, "reviewed_quote", "side") ?? field(create.request, "side"),
      size: create.size,
    })
  } catch (failure) {
    log.error("refusal.unrecorded", {
      staff: create.staff.email,
      operation: create.operation,
      error: failure instanceof Error ? `${failure.name}: ${failure.message}` : "non-error thrown",
    })
  }
  return error
}

/** A create's JSON body checked by `schema`; a body that is not JSON or fails the schema is refused and on the trail. */
export async function readCreate<T>(db: Db, req: Request, schema: ZodType<T>, create: Omit<RefusedCreate, "request">): Promise<T> {
  let body: unknown
  try {
    body = await readJson(req)
  } catch (error) {
    throw await refused(db, { ...create, request: null }, error)
  }
  const result = schema.safeParse(body)
  if (result.success) return result.data
  throw await refused(db, { ...create, profileId: create.profileId ?? field(body, "profile_id"), request: body }, result.error)
}
