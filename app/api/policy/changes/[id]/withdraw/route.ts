import { pathParams, readJson } from "@/lib/console/http"
import { withdrawPolicyChange } from "@/lib/console/policy-changes"
import { withStaff } from "@/lib/console/with-staff"
import { withdrawBodySchema } from "@/lib/schemas/approvals"

// POST /api/policy/changes/{id}/withdraw - (admin) the maker withdraws their pending policy change; nothing applies
// Signed-in staff of any role reach it, so a non-admin's attempt is refused (role_required) on the decision trail too.
export const POST = withStaff<{ id: string }>("viewer", async ({ req, params, staff, runtime }) => {
  const { id } = pathParams(params, "id")
  withdrawBodySchema.parse(await readJson(req))
  return Response.json(await withdrawPolicyChange(runtime.db, staff, id))
})
