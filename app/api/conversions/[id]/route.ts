import { currentConversionsApi } from "@/lib/console/conversions-api"
import { pathParams, placedResponse } from "@/lib/console/http"
import { cancelConversion } from "@/lib/console/operations"
import { withStaff } from "@/lib/console/with-staff"

// GET /api/conversions/{id} - one conversion (an orchestration the event reader covers: asked of the service only when its events say it changed)
export const GET = withStaff<{ id: string }>("support", async ({ params, runtime }) => {
  const { id } = pathParams(params, "id")
  const covering = runtime.events?.covering() === true && (await currentConversionsApi(runtime.db)) === "orchestrations"
  return Response.json(await runtime.followed.get(id, () => runtime.upstream.getConversion(id), covering))
})

// DELETE /api/conversions/{id} - cancel a pending conversion
export const DELETE = withStaff<{ id: string }>("trader", async ({ params, staff, runtime }) => {
  const { id } = pathParams(params, "id")
  return placedResponse(await cancelConversion(runtime, staff, id))
})
