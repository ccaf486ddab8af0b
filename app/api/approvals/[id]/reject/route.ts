import { rejectRequest } from "@/lib/console/approvals/decisions"
import { pathParams, readJson } from "@/lib/console/http"
import { withStaff } from "@/lib/console/with-staff"
import { rejectBodySchema } from "@/lib/schemas/approvals"

// POST /api/approvals/{id}/reject - reject someone else's request, with a reason
export const POST = withStaff<{ id: string }>("trader", async ({ req, params, staff, runtime }) => {
  const { id } = pathParams(params, "id")
  const body = rejectBodySchema.parse(await readJson(req))
  return Response.json(await rejectRequest(runtime.db, staff, id, body))
})
