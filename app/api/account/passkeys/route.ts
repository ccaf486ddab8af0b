import { listPasskeys, registerBodySchema, registerPasskey } from "@/lib/auth/passkeys"
import { relyingParty } from "@/lib/auth/webauthn"
import { readJson } from "@/lib/console/http"
import { withStaff } from "@/lib/console/with-staff"

// GET /api/account/passkeys - your passkeys: id, name, created, last used
export const GET = withStaff("viewer", async ({ staff, runtime }) => {
  return Response.json({ items: await listPasskeys(runtime.db, staff.email) })
})

// POST /api/account/passkeys - register a passkey: {name, response} (the answer to the options' challenge, 2 minutes, once)
export const POST = withStaff("viewer", async ({ req, staff, runtime }) => {
  const body = registerBodySchema.parse(await readJson(req))
  return Response.json(await registerPasskey(runtime.db, staff, relyingParty(req.headers, req.url), body), { status: 201 })
})
