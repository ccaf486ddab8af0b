import { z } from "zod"

/**
 * The audit trail as GET /api/audit answers it, and the reconciler's report: declared
 * once, the server's types and the client's parsers both come from here.
 */

/** An intent as the trail and the intent pages show it. */
export const intentEntryShape = {
  id: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  resolved_at: z.string().nullable(),
  staff_email: z.string(),
  staff_role: z.string(),
  operation: z.string(),
  profile_id: z.string().nullable(),
  /** The ref_id a create was sent with; null for a cancel. */
  ref_id: z.string().nullable(),
  /** The record a cancel acts on (the conversion's id); null for a create. */
  target_id: z.string().nullable(),
  /** Which of the service's conversion APIs a conversion went to; null for an execution. */
  upstream_api: z.string().nullable().default(null),
  state: z.string(),
  record_id: z.string().nullable(),
  record_status: z.string().nullable(),
  attempts: z.number(),
  request: z.record(z.string(), z.unknown()),
  problem: z.object({ title: z.string(), status: z.number().nullable(), detail: z.string().nullable() }).nullable(),
  /** The market and side of a quote execution (null for conversions, cancels, or when not known). */
  market: z.string().nullable().default(null),
  side: z.string().nullable().default(null),
  /** A create's size in fiat, what the limits count. */
  size: z.object({ amount: z.string(), currency: z.string() }).nullable().default(null),
  /** Who approved or rejected it, when a second person decided; and the request's state. */
  approver: z.string().nullable().default(null),
  approval_state: z.string().nullable().default(null),
}

export const auditEntrySchema = z.object(intentEntryShape)
export type AuditEntry = z.infer<typeof auditEntrySchema>

/** A page of the trail; `next_page_cursor` is there when an older page follows. */
export const auditPageSchema = z.object({ items: z.array(auditEntrySchema), next_page_cursor: z.string().optional() })
export type AuditPage = z.infer<typeof auditPageSchema>

export const reconcileReportSchema = z.object({
  examined: z.number(),
  resolved: z.number(),
  succeeded: z.number(),
  failed: z.number(),
  unresolved: z.number(),
})
export type ReconcileReport = z.infer<typeof reconcileReportSchema>
