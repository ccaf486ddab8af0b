import { auditQuerySchema, listAudit } from "@/lib/console/audit"
import { queryObject } from "@/lib/console/http"
import { consoleRuntime } from "@/lib/console/runtime"
import { withStaff } from "@/lib/console/with-staff"

// GET /api/audit - the intents: who did what, when, with which result
export const GET = withStaff("admin", async ({ req }) => {
  const query = auditQuerySchema.parse(queryObject(req))
  const { db } = await consoleRuntime()
  return Response.json(await listAudit(db, query))
})
