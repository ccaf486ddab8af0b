import { removePasskey, renameBodySchema, renamePasskey } from "@/lib/auth/passkeys"
import { pathParams, readJson } from "@/lib/console/http"
import { withStaff } from "@/lib/console/with-staff"

// PATCH /api/account/passkeys/{id} - rename one of your passkeys: {name}
export const PATCH = withStaff<{ id: string }>("viewer", async ({ req, params, staff, runtime }) => {
  const { id } = pathParams(params, "id")
  const body = renameBodySchema.parse(await readJson(req))
  return Response.json(await renamePasskey(runtime.db, staff, id, body.name))
})

// DELETE /api/account/passkeys/{id} - remove one of your passkeys
export const DELETE = withStaff<{ id: string }>("viewer", async ({ params, staff, runtime }) => {
  const { id } = pathParams(params, "id")
  await removePasskey(runtime.db, staff, id)
  return Response.json({ id, removed: true })
})
