import { withdrawRequest } from "@/lib/console/approvals/decisions"
import { pathParams, readJson } from "@/lib/console/http"
import { withStaff } from "@/lib/console/with-staff"
import { withdrawBodySchema } from "@/lib/schemas/approvals"

// POST /api/approvals/{id}/withdraw - the maker withdraws their pending request
export const POST = withStaff<{ id: string }>("trader", async ({ req, params, staff, runtime }) => {
  const { id } = pathParams(params, "id")
  const body = withdrawBodySchema.parse(await readJson(req))
  return Response.json(await withdrawRequest(runtime.db, staff, id, body))
})
