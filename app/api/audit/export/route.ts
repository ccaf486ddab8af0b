import { auditQuerySchema, listAudit } from "@/lib/console/audit"
import { AUDIT_CSV_COLUMNS, EXPORT_PAGE_SIZE, csvExport } from "@/lib/console/exports"
import { withStaff } from "@/lib/console/with-staff"

const exportQuerySchema = auditQuerySchema.omit({ limit: true, page_cursor: true })

// GET /api/audit/export - the intents the filters select, as a streamed CSV
export const GET = withStaff("admin", async ({ query, runtime }) => {
  const filters = exportQuerySchema.parse(query)
  return csvExport({
    name: "audit",
    columns: AUDIT_CSV_COLUMNS,
    fetchPage: (pageCursor) => listAudit(runtime.db, { ...filters, limit: EXPORT_PAGE_SIZE, ...(pageCursor ? { page_cursor: pageCursor } : {}) }),
  })
})
