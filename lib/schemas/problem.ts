import { z } from "zod"

/** RFC 9457 problem details, as the service and the console's API send them. */
export const problemSchema = z.object({
  type: z.string().default("about:blank"),
  title: z.string(),
  status: z.number().int(),
  detail: z.string().optional(),
  instance: z.string().optional(),
  meta: z.record(z.string(), z.unknown()).optional(),
})
export type Problem = z.infer<typeof problemSchema>

export const PROBLEM_CONTENT_TYPE = "application/problem+json"
export const PROBLEM_TYPE_BASE = "https://developer.paxos.com/docs/v2/problems/"

/** The service's named problems: slug → title. */
export const NAMED_PROBLEMS = {
  expired: "Expired",
  "insufficient-funds": "Insufficient Funds",
  rejected: "Rejected",
  "already-exists": "Already Exists",
} as const
export type NamedProblem = keyof typeof NAMED_PROBLEMS

export function problemSlug(problem: Pick<Problem, "type">): string | null {
  return problem.type.startsWith(PROBLEM_TYPE_BASE) ? problem.type.slice(PROBLEM_TYPE_BASE.length) : null
}
