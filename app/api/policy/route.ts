import { readJson } from "@/lib/console/http"
import { normalizePolicy, policyView } from "@/lib/console/policy"
import { proposePolicyChange } from "@/lib/console/policy-changes"
import { withStaff } from "@/lib/console/with-staff"
import { relyingParty } from "@/lib/auth/webauthn"
import { env } from "@/lib/env"
import { policyPutBodySchema } from "@/lib/schemas/approvals"

// GET /api/policy - approval thresholds, limits, and each staff member's usage today (UTC)
export const GET = withStaff("admin", async ({ runtime }) => {
  return Response.json(await policyView(runtime.db, new Date()))
})

// PUT /api/policy - propose a new policy: 202 with the change, PENDING until another active admin approves it (POST /api/policy/changes/{id}/approve); the only active admin's change applies at once (200 with the policy; with STEP_UP=webauthn their passkey assertion in `step_up`; flagged single_admin on the audit trail)
export const PUT = withStaff("admin", async ({ req, staff, runtime }) => {
  const { step_up: assertion, ...body } = policyPutBodySchema.parse(await readJson(req))
  const policy = normalizePolicy(body)
  const outcome = await proposePolicyChange(runtime.db, staff, policy, { stepUp: { mode: env().stepUp, rp: relyingParty(req.headers, req.url), assertion } })
  if (outcome.kind === "pending") return Response.json({ change: outcome.change }, { status: 202 })
  return Response.json({ ...(await policyView(runtime.db, new Date())), change: outcome.change })
})
