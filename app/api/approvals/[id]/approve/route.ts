import { approveRequest } from "@/lib/console/approvals/decisions"
import { heldQuotesOf } from "@/lib/console/held-quotes"
import { pathParams, readJson } from "@/lib/console/http"
import { withStaff } from "@/lib/console/with-staff"
import { relyingParty } from "@/lib/auth/webauthn"
import { env } from "@/lib/env"
import { approveBodySchema } from "@/lib/schemas/approvals"

// POST /api/approvals/{id}/approve - (with STEP_UP=webauthn, a passkey assertion in `step_up`; without one, 403 step_up_required) approve someone else's request and place it (at or better than its limit price)
export const POST = withStaff<{ id: string }>("trader", async ({ req, params, staff, runtime }) => {
  const { id } = pathParams(params, "id")
  const body = approveBodySchema.parse(await readJson(req))
  return Response.json(await approveRequest(runtime, staff, id, body, { heldQuotes: heldQuotesOf(runtime), stepUp: { mode: env().stepUp, rp: relyingParty(req.headers, req.url), assertion: body.step_up } }))
})
