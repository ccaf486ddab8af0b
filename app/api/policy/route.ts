import { readJson } from "@/lib/console/http"
import { normalizePolicy, policyView, savePolicy } from "@/lib/console/policy"
import { withStaff } from "@/lib/console/with-staff"
import { policySchema } from "@/lib/schemas/approvals"

// GET /api/policy - approval thresholds, limits, and each staff member's usage today (UTC)
export const GET = withStaff("admin", async ({ runtime }) => {
  return Response.json(await policyView(runtime.db, new Date()))
})

// PUT /api/policy - replace the policy (the change goes on the audit trail with before and after)
export const PUT = withStaff("admin", async ({ req, staff, runtime }) => {
  const policy = normalizePolicy(policySchema.parse(await readJson(req)))
  await savePolicy(runtime.db, staff, policy)
  return Response.json(await policyView(runtime.db, new Date()))
})
