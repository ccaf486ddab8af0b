/**
 * Plain values of the schemas, without zod, for pages that only need to list the choices
 * or read a status (the schema modules re-export them).
 */
export const EXECUTION_SIDES = ["BUY", "SELL"] as const
export const EXECUTION_STATUSES = ["CREATED", "SETTLED"] as const

/** RFC 3339 date-time, fractional seconds from none to nanoseconds, Z or an offset. */
export const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/

/**
 * Terminal states: polling stops once a record reaches one (a conversion placed through
 * the Orchestrations API ends COMPLETED or FAILED, or REJECTED when the service's own
 * approval refused it: nothing moved).
 */
export const TERMINAL_STATUSES = ["SETTLED", "CANCELLED", "COMPLETED", "FAILED", "REJECTED"] as const

export function isTerminalStatus(status: string): boolean {
  return (TERMINAL_STATUSES as readonly string[]).includes(status)
}

/**
 * The service's two conversion APIs: stablecoin conversions (deprecated by the service)
 * and Orchestrations, its replacement. UPSTREAM_CONVERSIONS_API picks one.
 */
export const CONVERSIONS_APIS = ["stablecoin-conversions", "orchestrations"] as const
export type ConversionsApi = (typeof CONVERSIONS_APIS)[number]
export function isConversionsApi(value: unknown): value is ConversionsApi {
  return (CONVERSIONS_APIS as readonly unknown[]).includes(value)
}
export const CONVERSIONS_API_LABELS: Record<ConversionsApi, string> = {
  "stablecoin-conversions": "Stablecoin conversions",
  orchestrations: "Orchestrations",
}

/**
 * The /approvals page's list: GET /api/approvals?limit=100 (every state, pending first), polled
 * or pushed on the stream's `approval_list` topic; the browser and the stream read the same page.
 */
export const APPROVALS_LIST_LIMIT = 100
