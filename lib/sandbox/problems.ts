import "server-only"
import { HttpProblem } from "@/lib/problem"
import { type NamedProblem, NAMED_PROBLEMS, PROBLEM_TYPE_BASE } from "@/lib/schemas/problem"

/**
 * The service's problems as the sandbox answers them: the service's own shapes, without
 * the console's `code` (the console adds one when it passes a problem on).
 */

/** An "about:blank" problem: the status's reason phrase as its title. */
export function genericProblem(
  status: number,
  detail?: string,
  meta?: Record<string, unknown>,
  headers?: Record<string, string>,
): HttpProblem {
  return new HttpProblem({ status, ...(detail !== undefined ? { detail } : {}), ...(meta !== undefined ? { meta } : {}) }, headers)
}

/** One of the service's named problems (Already Exists, Expired, …). */
export function namedProblem(slug: NamedProblem, status: number, detail: string, meta: Record<string, unknown>): HttpProblem {
  return new HttpProblem({ type: `${PROBLEM_TYPE_BASE}${slug}`, title: NAMED_PROBLEMS[slug], status, detail, meta })
}

/** 400 naming every offending field: `meta.fields` maps field → what is wrong. */
export function badRequest(fields: Record<string, string>, detail?: string): HttpProblem {
  const summary = Object.entries(fields)
    .map(([field, message]) => `${field}: ${message}`)
    .join("; ")
  return genericProblem(400, detail ?? `invalid request: ${summary}`, { fields })
}

export function notFound(detail: string): HttpProblem {
  return genericProblem(404, detail)
}
