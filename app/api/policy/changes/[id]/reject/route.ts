import { pathParams, readJson } from "@/lib/console/http"
import { rejectPolicyChange } from "@/lib/console/policy-changes"
import { withStaff } from "@/lib/console/with-staff"
import { relyingParty } from "@/lib/auth/webauthn"
import { env } from "@/lib/env"
import { rejectBodySchema } from "@/lib/schemas/approvals"

// POST /api/policy/changes/{id}/reject - (admin; with STEP_UP=webauthn, a passkey assertion in `step_up`) reject another admin's policy change, with a reason; nothing applies
// Signed-in staff of any role reach it, so a non-admin's attempt is refused (role_required) on the decision trail too.
export const POST = withStaff<{ id: string }>("viewer", async ({ req, params, staff, runtime }) => {
  const { id } = pathParams(params, "id")
  const body = rejectBodySchema.parse(await readJson(req))
  return Response.json(await rejectPolicyChange(runtime.db, staff, id, body, { stepUp: { mode: env().stepUp, rp: relyingParty(req.headers, req.url), assertion: body.step_up } }))
})
