import { pathParams, placedResponse } from "@/lib/console/http"
import { cancelConversion } from "@/lib/console/operations"
import { withStaff } from "@/lib/console/with-staff"

// GET /api/conversions/{id} - one conversion
export const GET = withStaff<{ id: string }>("support", async ({ params, runtime }) => {
  const { id } = pathParams(params, "id")
  return Response.json(await runtime.upstream.getConversion(id))
})

// DELETE /api/conversions/{id} - cancel a pending conversion
export const DELETE = withStaff<{ id: string }>("trader", async ({ params, staff, runtime }) => {
  const { id } = pathParams(params, "id")
  return placedResponse(await cancelConversion(runtime, staff, id))
})
