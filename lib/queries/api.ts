import type { z } from "zod"
import type { Problem } from "@/lib/schemas/problem"

/** The console API answered with a problem (RFC 9457). */
export class ApiProblemError extends Error {
  readonly problem: Problem
  constructor(problem: Problem) {
    super(problem.detail ?? problem.title)
    this.name = "ApiProblemError"
    this.problem = problem
  }
  get status(): number {
    return this.problem.status
  }
  /** The field → rule map of a 400, if any. */
  get fields(): Record<string, string> {
    const fields = this.problem.meta?.fields
    return fields && typeof fields === "object" ? (fields as Record<string, string>) : {}
  }
}

/** The request never got an answer (network down, connection dropped). Safe to retry with the same ref_id. */
export class ApiNetworkError extends Error {
  constructor(cause: unknown) {
    super("The console could not be reached. Check your connection and try again.", { cause })
    this.name = "ApiNetworkError"
  }
}

export interface ApiRequest<T> {
  method?: "GET" | "POST" | "PUT" | "PATCH" | "DELETE"
  body?: unknown
  signal?: AbortSignal | undefined
  /** Checks the answer; a loader (`() => import(...)`) keeps the schema, and zod, out of the page's first load. */
  schema?: z.ZodType<T> | (() => Promise<z.ZodType<T>>)
}

/** Same-origin call to the console API; problems become ApiProblemError, failures ApiNetworkError. */
export async function apiFetch<T>(path: string, request: ApiRequest<T> = {}): Promise<T> {
  let res: Response
  try {
    res = await fetch(path, {
      method: request.method ?? "GET",
      credentials: "same-origin",
      cache: "no-store",
      signal: request.signal ?? null,
      headers: request.body === undefined ? { accept: "application/json" } : { "content-type": "application/json", accept: "application/json" },
      body: request.body === undefined ? null : JSON.stringify(request.body),
    })
  } catch (error) {
    if (error instanceof DOMException && error.name === "AbortError") throw error
    throw new ApiNetworkError(error)
  }
  let payload: unknown
  try {
    payload = await res.json()
  } catch (error) {
    if (!res.ok) throw new ApiProblemError({ type: "about:blank", title: res.statusText || "Error", status: res.status })
    throw new ApiNetworkError(error)
  }
  if (!res.ok) {
    if (res.status === 401 && typeof window !== "undefined") {
      // The session lapsed (idle or absolute timeout): back to sign-in, then here again.
      window.location.assign(`/sign-in?callbackUrl=${encodeURIComponent(window.location.pathname + window.location.search)}`)
    }
    const fallback: Problem = { type: "about:blank", title: res.statusText || "Error", status: res.status }
    let problem = fallback
    try {
      // Loaded on the error path only: pages start without the validation library.
      const { problemSchema } = await import("@/lib/schemas/problem")
      const parsed = problemSchema.safeParse(payload)
      if (parsed.success) problem = parsed.data
    } catch {
      // The schema's code could not be loaded (offline): the status still says what happened.
    }
    throw new ApiProblemError(problem)
  }
  if (!request.schema) return payload as T
  const schema = typeof request.schema === "function" ? await request.schema() : request.schema
  return schema.parse(payload)
}

/** A query string from filters, skipping empty values. */
export function toQuery(params: Record<string, string | number | undefined | null | readonly string[]>): string {
  const search = new URLSearchParams()
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === null || value === "") continue
    if (Array.isArray(value)) for (const v of value as readonly string[]) search.append(key, v)
    else search.set(key, String(value))
  }
  const text = search.toString()
  return text ? `?${text}` : ""
}
