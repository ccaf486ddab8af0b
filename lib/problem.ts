import "server-only"
import { type NamedProblem, NAMED_PROBLEMS, PROBLEM_CONTENT_TYPE, PROBLEM_TYPE_BASE, type Problem, reasonPhrase } from "@/lib/schemas/problem"

/**
 * The one RFC 9457 toolkit of the console and the embedded sandbox: throw an HttpProblem
 * from a handler; the console's withStaff and the sandbox's error handler answer it with
 * problemResponse.
 */
export class HttpProblem extends Error {
  override name = "HttpProblem"
  readonly problem: Problem
  readonly headers: Record<string, string>
  constructor(problem: Partial<Problem> & { status: number }, headers: Record<string, string> = {}) {
    const full: Problem = {
      type: problem.type ?? "about:blank",
      title: problem.title ?? reasonPhrase(problem.status),
      status: problem.status,
      ...(problem.detail !== undefined ? { detail: problem.detail } : {}),
      ...(problem.instance !== undefined ? { instance: problem.instance } : {}),
      ...(problem.meta !== undefined ? { meta: problem.meta } : {}),
    }
    super(full.detail ?? full.title)
    this.problem = full
    this.headers = headers
  }
}

/** The problem as an `application/problem+json` response (a thrown HttpProblem brings its own headers). */
export function problemResponse(problem: Problem | HttpProblem, headers: Record<string, string> = {}): Response {
  const [body, own] = problem instanceof HttpProblem ? [problem.problem, problem.headers] : [problem, {}]
  return new Response(JSON.stringify(body), {
    status: body.status,
    headers: { "content-type": PROBLEM_CONTENT_TYPE, "cache-control": "no-store", ...own, ...headers },
  })
}

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
