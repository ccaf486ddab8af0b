import { getApproval } from "@/lib/console/approvals/reads"
import { pathParams } from "@/lib/console/http"
import { withStaff } from "@/lib/console/with-staff"

// GET /api/approvals/{id} - one request: maker, checker, times, limit and executed price, the record it placed
export const GET = withStaff<{ id: string }>("trader", async ({ params, runtime }) => {
  const { id } = pathParams(params, "id")
  return Response.json(await getApproval(runtime.db, id))
})
