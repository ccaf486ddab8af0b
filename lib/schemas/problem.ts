import { z } from "zod"

/** RFC 9457 problem details, as the service and the console's API send them. */
export const problemSchema = z.object({
  type: z.string().default("about:blank"),
  title: z.string(),
  status: z.number().int(),
  /** The console's stable code (lib/schemas/problem-codes.ts); the service's own problems have none until the console passes them on. */
  code: z.string().optional(),
  detail: z.string().optional(),
  instance: z.string().optional(),
  meta: z.record(z.string(), z.unknown()).optional(),
})
export type Problem = z.infer<typeof problemSchema>

export const PROBLEM_CONTENT_TYPE = "application/problem+json"
export { NAMED_PROBLEMS, type NamedProblem, PROBLEM_TYPE_BASE, problemSlug } from "@/lib/schemas/problem-slug"
export { CONSOLE_PROBLEM_CODES, type ConsoleProblemCode, type ProblemCode, SERVICE_PROBLEM_CODES, type ServiceProblemCode, hasProblemCode } from "@/lib/schemas/problem-codes"

/** HTTP reason phrases: the title of a generic (`about:blank`) problem. */
const REASON_PHRASES: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  410: "Gone",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  422: "Unprocessable Content",
  429: "Too Many Requests",
  500: "Internal Server Error",
  501: "Not Implemented",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
}

/** The reason phrase of a status; `fallback` (e.g. the answer's statusText) when the table has none. */
export function reasonPhrase(status: number, fallback = ""): string {
  return REASON_PHRASES[status] ?? (fallback.trim() || `HTTP ${status}`)
}
