import { z } from "zod"
import { lookupExecutionByRefId } from "@/lib/console/execution-lookup"
import { pathParams } from "@/lib/console/http"
import { withStaff } from "@/lib/console/with-staff"
import { serviceRefIdSchema } from "@/lib/schemas/common"

const lookupQuerySchema = z.strictObject({ ref_id: serviceRefIdSchema })

// GET /api/profiles/{profileId}/quote-executions/lookup?ref_id= - what became of an execution the console was asked to place
export const GET = withStaff<{ profileId: string }>("support", async ({ params, query, runtime }) => {
  const { profileId } = pathParams(params, "profileId")
  const { ref_id: refId } = lookupQuerySchema.parse(query)
  return Response.json(await lookupExecutionByRefId(runtime, profileId, refId))
})
