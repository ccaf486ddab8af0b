import { changeStaff, removeStaff } from "@/lib/auth/staff"
import { readJson } from "@/lib/console/http"
import { withStaff } from "@/lib/console/with-staff"
import { staffEmailParamSchema, staffPatchSchema } from "@/lib/schemas/staff"

// PATCH /api/admin/staff/{email} - change role and/or status (active, disabled); disabling ends their sessions at once; 409 last_admin; audited
export const PATCH = withStaff<{ email: string }>("admin", async ({ req, params, staff, runtime }) => {
  const { email } = staffEmailParamSchema.parse(params)
  const change = staffPatchSchema.parse(await readJson(req))
  return Response.json(await changeStaff(runtime.db, staff, email, change))
})

// DELETE /api/admin/staff/{email} - remove someone: their passkeys and invitations go, their sessions end at once; 409 last_admin; audited
export const DELETE = withStaff<{ email: string }>("admin", async ({ params, staff, runtime }) => {
  const { email } = staffEmailParamSchema.parse(params)
  await removeStaff(runtime.db, staff, email)
  return new Response(null, { status: 204 })
})
