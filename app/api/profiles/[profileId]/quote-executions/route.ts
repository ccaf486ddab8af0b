import { relyingParty } from "@/lib/auth/webauthn"
import { submitQuoteExecution } from "@/lib/console/submission"
import { env } from "@/lib/env"
import { heldQuotesOf } from "@/lib/console/held-quotes"
import { pathParams, submissionResponse } from "@/lib/console/http"
import { readCreate } from "@/lib/console/refusals"
import { withStaff } from "@/lib/console/with-staff"
import { consoleQuoteExecutionCreateSchema, quoteExecutionListQuerySchema } from "@/lib/schemas/quote-execution"

// POST /api/profiles/{profileId}/quote-executions - execute a held quote (exactly once per ref_id); 202 with the request when it needs approval; at or over the policy's step_up_over (STEP_UP=webauthn) a passkey assertion in `step_up`, without one 403 step_up_required
export const POST = withStaff<{ profileId: string }>("trader", async ({ req, params, staff, runtime }) => {
  const { profileId } = pathParams(params, "profileId")
  const input = await readCreate(runtime.db, req, consoleQuoteExecutionCreateSchema, { staff, operation: "create_execution", profileId })
  const submission = await submitQuoteExecution(runtime, staff, profileId, input, { heldQuotes: heldQuotesOf(runtime), stepUp: { mode: env().stepUp, rp: relyingParty(req.headers, req.url) } })
  return submissionResponse(submission)
})

// GET /api/profiles/{profileId}/quote-executions - list, with the service's filters and paging
export const GET = withStaff<{ profileId: string }>("viewer", async ({ params, query, runtime }) => {
  const { profileId } = pathParams(params, "profileId")
  return Response.json(await runtime.upstream.listQuoteExecutions(profileId, quoteExecutionListQuerySchema.parse(query)))
})
