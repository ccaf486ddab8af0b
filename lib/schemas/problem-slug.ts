/**
 * The service's named problems, without zod: pages that only need to tell an Expired from
 * an Insufficient Funds (the problem alert) stay free of the validation library.
 * lib/schemas/problem re-exports all of this.
 */
export const PROBLEM_TYPE_BASE = "https://developer.paxos.com/docs/v2/problems/"

/** The service's named problems: slug → title. */
export const NAMED_PROBLEMS = {
  expired: "Expired",
  "insufficient-funds": "Insufficient Funds",
  rejected: "Rejected",
  "already-exists": "Already Exists",
} as const
export type NamedProblem = keyof typeof NAMED_PROBLEMS

export function problemSlug(problem: { type: string }): string | null {
  return problem.type.startsWith(PROBLEM_TYPE_BASE) ? problem.type.slice(PROBLEM_TYPE_BASE.length) : null
}
