import { pathParams } from "@/lib/console/http"
import { withStaff } from "@/lib/console/with-staff"

// GET /api/profiles/{profileId}/quote-executions/{id} - one execution
export const GET = withStaff<{ profileId: string; id: string }>("viewer", async ({ params, runtime }) => {
  const { profileId, id } = pathParams(params, "profileId", "id")
  return Response.json(await runtime.upstream.getQuoteExecution(profileId, id))
})
