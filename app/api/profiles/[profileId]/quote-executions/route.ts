import { pathParams, placedResponse, queryObject } from "@/lib/console/http"
import { executeQuote } from "@/lib/console/operations"
import { consoleRuntime } from "@/lib/console/runtime"
import { readJson, withStaff } from "@/lib/console/with-staff"
import { consoleQuoteExecutionCreateSchema, quoteExecutionListQuerySchema } from "@/lib/schemas/quote-execution"

// POST /api/profiles/{profileId}/quote-executions - execute a held quote (exactly once per ref_id)
export const POST = withStaff<{ profileId: string }>("trader", async ({ req, params, staff }) => {
  const { profileId } = pathParams(params, "profileId")
  const input = consoleQuoteExecutionCreateSchema.parse(await readJson(req))
  return placedResponse(await executeQuote(await consoleRuntime(), staff, profileId, input))
})

// GET /api/profiles/{profileId}/quote-executions - list, with the service's filters and paging
export const GET = withStaff<{ profileId: string }>("viewer", async ({ req, params }) => {
  const { profileId } = pathParams(params, "profileId")
  const query = quoteExecutionListQuerySchema.parse(queryObject(req))
  const { upstream } = await consoleRuntime()
  return Response.json(await upstream.listQuoteExecutions(profileId, query))
})
