import { auditQuerySchema, listAudit } from "@/lib/console/audit"
import { withStaff } from "@/lib/console/with-staff"

// GET /api/audit - the intents: who did what, when, with which result (paged: limit, page_cursor)
export const GET = withStaff("admin", async ({ query, runtime }) => {
  return Response.json(await listAudit(runtime.db, auditQuerySchema.parse(query)))
})
