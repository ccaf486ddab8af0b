import { pathParams, readJson } from "@/lib/console/http"
import { approvePolicyChange } from "@/lib/console/policy-changes"
import { withStaff } from "@/lib/console/with-staff"
import { relyingParty } from "@/lib/auth/webauthn"
import { env } from "@/lib/env"
import { approveBodySchema } from "@/lib/schemas/approvals"

// POST /api/policy/changes/{id}/approve - (admin; with STEP_UP=webauthn, a passkey assertion in `step_up`) approve another admin's policy change: it applies as the next version (409 policy_stale when its base version is no longer in force, 409 state_conflict when no longer pending)
// Signed-in staff of any role reach it, so a non-admin's attempt is refused (role_required) on the decision trail too.
export const POST = withStaff<{ id: string }>("viewer", async ({ req, params, staff, runtime }) => {
  const { id } = pathParams(params, "id")
  const body = approveBodySchema.parse(await readJson(req))
  return Response.json(await approvePolicyChange(runtime.db, staff, id, body, { stepUp: { mode: env().stepUp, rp: relyingParty(req.headers, req.url), assertion: body.step_up } }))
})
