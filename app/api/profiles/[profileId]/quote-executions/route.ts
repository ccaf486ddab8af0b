import { pathParams, placedResponse, readJson } from "@/lib/console/http"
import { executeQuote } from "@/lib/console/operations"
import { withStaff } from "@/lib/console/with-staff"
import { consoleQuoteExecutionCreateSchema, quoteExecutionListQuerySchema } from "@/lib/schemas/quote-execution"

// POST /api/profiles/{profileId}/quote-executions - execute a held quote (exactly once per ref_id)
export const POST = withStaff<{ profileId: string }>("trader", async ({ req, params, staff, runtime }) => {
  const { profileId } = pathParams(params, "profileId")
  const input = consoleQuoteExecutionCreateSchema.parse(await readJson(req))
  return placedResponse(await executeQuote(runtime, staff, profileId, input))
})

// GET /api/profiles/{profileId}/quote-executions - list, with the service's filters and paging
export const GET = withStaff<{ profileId: string }>("viewer", async ({ params, query, runtime }) => {
  const { profileId } = pathParams(params, "profileId")
  return Response.json(await runtime.upstream.listQuoteExecutions(profileId, quoteExecutionListQuerySchema.parse(query)))
})
