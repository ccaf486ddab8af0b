import { pathParams, placedResponse } from "@/lib/console/http"
import { cancelConversion } from "@/lib/console/operations"
import { consoleRuntime } from "@/lib/console/runtime"
import { withStaff } from "@/lib/console/with-staff"

// GET /api/conversions/{id} - one conversion
export const GET = withStaff<{ id: string }>("support", async ({ params }) => {
  const { id } = pathParams(params, "id")
  const { upstream } = await consoleRuntime()
  return Response.json(await upstream.getConversion(id))
})

// DELETE /api/conversions/{id} - cancel a pending conversion
export const DELETE = withStaff<{ id: string }>("trader", async ({ params, staff }) => {
  const { id } = pathParams(params, "id")
  return placedResponse(await cancelConversion(await consoleRuntime(), staff, id))
})
