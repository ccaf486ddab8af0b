import { pathParams } from "@/lib/console/http"
import { withStaff } from "@/lib/console/with-staff"

// GET /api/transfers/{id} - one transfer
export const GET = withStaff<{ id: string }>("support", async ({ params, runtime }) => {
  const { id } = pathParams(params, "id")
  return Response.json(await runtime.upstream.getTransfer(id))
})
