import { registrationOptions } from "@/lib/auth/passkeys"
import { relyingParty } from "@/lib/auth/webauthn"
import { withStaff } from "@/lib/console/with-staff"

// POST /api/account/passkeys/options - a registration ceremony's options, with a one-time challenge kept 2 minutes
export const POST = withStaff("viewer", async ({ req, staff, runtime }) => {
  return Response.json(await registrationOptions(runtime.db, staff, relyingParty(req.headers, req.url)))
})
