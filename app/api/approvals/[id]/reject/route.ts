import { rejectRequest } from "@/lib/console/approvals/decisions"
import { pathParams, readJson } from "@/lib/console/http"
import { withStaff } from "@/lib/console/with-staff"
import { relyingParty } from "@/lib/auth/webauthn"
import { env } from "@/lib/env"
import { rejectBodySchema } from "@/lib/schemas/approvals"

// POST /api/approvals/{id}/reject - (with STEP_UP=webauthn, a passkey assertion in `step_up`; without one, 403 step_up_required) reject someone else's request, with a reason
export const POST = withStaff<{ id: string }>("trader", async ({ req, params, staff, runtime }) => {
  const { id } = pathParams(params, "id")
  const body = rejectBodySchema.parse(await readJson(req))
  return Response.json(await rejectRequest(runtime.db, staff, id, body, { stepUp: { mode: env().stepUp, rp: relyingParty(req.headers, req.url), assertion: body.step_up } }))
})
