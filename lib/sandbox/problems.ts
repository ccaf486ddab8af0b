import "server-only"
import { type NamedProblem, NAMED_PROBLEMS, PROBLEM_CONTENT_TYPE, PROBLEM_TYPE_BASE, reasonPhrase } from "@/lib/schemas/problem"

export interface ProblemBody {
  type: string
  title: string
  status: number
  detail?: string
  meta?: Record<string, unknown>
}

/** An RFC 9457 problem thrown by handlers; the app's error handler answers it. */
export class SandboxProblem extends Error {
  override name = "SandboxProblem"
  constructor(
    readonly body: ProblemBody,
    readonly headers: Record<string, string> = {},
  ) {
    super(body.detail ?? body.title)
  }
}

export function genericProblem(
  status: number,
  detail?: string,
  meta?: Record<string, unknown>,
  headers?: Record<string, string>,
): SandboxProblem {
  const body: ProblemBody = { type: "about:blank", title: reasonPhrase(status), status }
  if (detail !== undefined) body.detail = detail
  if (meta !== undefined) body.meta = meta
  return new SandboxProblem(body, headers)
}

export function namedProblem(
  slug: NamedProblem,
  status: number,
  detail: string,
  meta: Record<string, unknown>,
): SandboxProblem {
  return new SandboxProblem({ type: `${PROBLEM_TYPE_BASE}${slug}`, title: NAMED_PROBLEMS[slug], status, detail, meta })
}

/** 400 naming every offending field: `meta.fields` maps field → what is wrong. */
export function badRequest(fields: Record<string, string>, detail?: string): SandboxProblem {
  const summary = Object.entries(fields)
    .map(([field, message]) => `${field}: ${message}`)
    .join("; ")
  return genericProblem(400, detail ?? `invalid request: ${summary}`, { fields })
}

export function notFound(detail: string): SandboxProblem {
  return genericProblem(404, detail)
}

export function problemResponse(problem: SandboxProblem): Response {
  return new Response(JSON.stringify(problem.body), {
    status: problem.body.status,
    headers: { "content-type": PROBLEM_CONTENT_TYPE, "cache-control": "no-store", ...problem.headers },
  })
}
