import "server-only"
import { PROBLEM_CONTENT_TYPE, type Problem, reasonPhrase } from "@/lib/schemas/problem"

/** A problem the console answers with; throw it from a handler, withStaff renders it. */
export class HttpProblem extends Error {
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
    this.name = "HttpProblem"
    this.problem = full
    this.headers = headers
  }
}

export function problemResponse(problem: Problem, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(problem), {
    status: problem.status,
    headers: { "content-type": PROBLEM_CONTENT_TYPE, "cache-control": "no-store", ...headers },
  })
}
