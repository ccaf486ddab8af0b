import { pathParams } from "@/lib/console/http"
import { consoleRuntime } from "@/lib/console/runtime"
import { withStaff } from "@/lib/console/with-staff"

// GET /api/profiles/{profileId}/quote-executions/{id} - one execution
export const GET = withStaff<{ profileId: string; id: string }>("viewer", async ({ params }) => {
  const { profileId, id } = pathParams(params, "profileId", "id")
  const { upstream } = await consoleRuntime()
  return Response.json(await upstream.getQuoteExecution(profileId, id))
})
