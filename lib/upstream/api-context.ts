import "server-only"
import type { z } from "zod"
import type { Conversion, QuoteExecution } from "@/lib/schemas/records"
import { UpstreamConfigError, UpstreamConflictError, type UpstreamProblem, UpstreamResponseError } from "@/lib/upstream/errors"
import type { AlreadyExistsVerdict, createCaller } from "@/lib/upstream/request"

/** What every adapter of the service's APIs shares: URLs, path segments, ref_ids, Already Exists. */

export type QueryValue = string | number | readonly string[] | undefined
export function withQuery(url: URL, query: Record<string, QueryValue> | undefined): URL {
  if (!query) return url
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue
    if (typeof value === "string" || typeof value === "number") url.searchParams.append(key, String(value))
    else for (const item of value) url.searchParams.append(key, item)
  }
  return url
}

export const seg = (value: string) => encodeURIComponent(value)

/** The part of the calls every adapter shares: URLs, scopes, the caller. */
export interface ApiContext {
  call: ReturnType<typeof createCaller>
  apiUrl: (path: string, query?: Record<string, QueryValue>) => URL
  scopes: readonly string[]
}

export function alreadyExists<T>(
  kind: "quote_execution" | "conversion",
  schema: z.ZodType<T>,
  op: string,
  matches: (record: T) => boolean,
): (problem: UpstreamProblem) => AlreadyExistsVerdict<T> {
  return (problem) => {
    const parsed = schema.safeParse(problem.meta?.existing)
    if (!parsed.success) {
      throw new UpstreamResponseError(`409 Already Exists without a readable meta.existing (${op})`, {
        outcome: "unknown",
        operation: op,
        mutating: true,
        status: 409,
      })
    }
    if (matches(parsed.data)) return { kind: "replayed", record: parsed.data }
    const existing =
      kind === "quote_execution"
        ? { kind, record: parsed.data as QuoteExecution }
        : { kind, record: parsed.data as Conversion }
    return {
      kind: "conflict",
      error: new UpstreamConflictError({ ...problem, meta: { existing: parsed.data } }, existing, { operation: op, mutating: true }),
    }
  }
}

export function requireRefId(op: string, refId: string | undefined): void {
  if (typeof refId !== "string" || refId.trim() === "") {
    throw new UpstreamConfigError(`${op} needs a ref_id: without one a retry could place it twice`, { operation: op })
  }
}
