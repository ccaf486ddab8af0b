import { relyingParty } from "@/lib/auth/webauthn"
import { submitConversion } from "@/lib/console/submission"
import { env } from "@/lib/env"
import { submissionResponse } from "@/lib/console/http"
import { readCreate } from "@/lib/console/refusals"
import { withStaff } from "@/lib/console/with-staff"
import { consoleConversionCreateSchema, conversionListQuerySchema } from "@/lib/schemas/conversion"

// POST /api/conversions - create a stablecoin conversion (exactly once per ref_id); 202 with the request when it needs approval; at or over the policy's step_up_over (STEP_UP=webauthn) a passkey assertion in `step_up`, without one 403 step_up_required
export const POST = withStaff("trader", async ({ req, staff, runtime }) => {
  const input = await readCreate(runtime.db, req, consoleConversionCreateSchema, { staff, operation: "create_conversion", profileId: null })
  return submissionResponse(await submitConversion(runtime, staff, input, { stepUp: { mode: env().stepUp, rp: relyingParty(req.headers, req.url) } }))
})

// GET /api/conversions - list, with the service's filters and paging
export const GET = withStaff("support", async ({ query, runtime }) => {
  return Response.json(await runtime.upstream.listConversions(conversionListQuerySchema.parse(query)))
})
