import { type AuditEntry, auditQuerySchema, listAudit } from "@/lib/console/audit"
import { allPages, csvResponse } from "@/lib/console/csv"
import { queryObject } from "@/lib/console/http"
import { consoleRuntime } from "@/lib/console/runtime"
import { withStaff } from "@/lib/console/with-staff"

const exportQuerySchema = auditQuerySchema.omit({ limit: true, cursor: true })

const text = (value: unknown) => (typeof value === "string" ? value : undefined)

/** Only what the request said about money and the quote; never the whole body. */
const COLUMNS: readonly { header: string; value: (row: AuditEntry) => unknown }[] = [
  { header: "created_at", value: (r) => r.created_at },
  { header: "staff_email", value: (r) => r.staff_email },
  { header: "staff_role", value: (r) => r.staff_role },
  { header: "operation", value: (r) => r.operation },
  { header: "profile_id", value: (r) => r.profile_id },
  { header: "state", value: (r) => r.state },
  { header: "ref_id", value: (r) => r.ref_id },
  { header: "record_id", value: (r) => r.record_id },
  { header: "record_status", value: (r) => r.record_status },
  { header: "quote_id", value: (r) => text(r.request.quote_id) },
  { header: "base_amount", value: (r) => text(r.request.base_amount) },
  { header: "quote_amount", value: (r) => text(r.request.quote_amount) },
  { header: "amount", value: (r) => text(r.request.amount) },
  { header: "source_asset", value: (r) => text(r.request.source_asset) },
  { header: "target_asset", value: (r) => text(r.request.target_asset) },
  { header: "problem_title", value: (r) => r.problem?.title },
  { header: "problem_status", value: (r) => r.problem?.status },
  { header: "problem_detail", value: (r) => r.problem?.detail },
  { header: "attempts", value: (r) => r.attempts },
  { header: "resolved_at", value: (r) => r.resolved_at },
  { header: "intent_id", value: (r) => r.id },
]

// GET /api/audit/export - the intents the filters select, as a streamed CSV
export const GET = withStaff("admin", async ({ req }) => {
  const filters = exportQuerySchema.parse(queryObject(req))
  const { db } = await consoleRuntime()
  return csvResponse({
    filename: `audit-${new Date().toISOString().slice(0, 10)}.csv`,
    columns: COLUMNS,
    pages: () =>
      allPages(async (cursor) => {
        const page = await listAudit(db, { ...filters, limit: 500, ...(cursor ? { cursor } : {}) })
        return { items: page.items, next_page_cursor: page.next_cursor }
      }),
  })
})
