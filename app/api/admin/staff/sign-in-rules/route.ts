import { setPasskeyRoles } from "@/lib/auth/staff"
import { readJson } from "@/lib/console/http"
import { withStaff } from "@/lib/console/with-staff"
import { signInRulesSchema } from "@/lib/schemas/staff"

// PUT /api/admin/staff/sign-in-rules - the roles that must sign in with a passkey ({passkey_roles}); audited with before and after
export const PUT = withStaff("admin", async ({ req, staff, runtime }) => {
  const body = signInRulesSchema.parse(await readJson(req))
  return Response.json({ passkey_roles: await setPasskeyRoles(runtime.db, staff, body.passkey_roles) })
})
