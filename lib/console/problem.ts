import "server-only"
import { PROBLEM_CONTENT_TYPE, type Problem } from "@/lib/schemas/problem"

const REASONS: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  422: "Unprocessable Content",
  429: "Too Many Requests",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
}

export function reasonPhrase(status: number): string {
  return REASONS[status] ?? "Error"
}

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
