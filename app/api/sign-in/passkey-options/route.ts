import { signInOptions } from "@/lib/auth/sign-in"
import { relyingParty } from "@/lib/auth/webauthn"
import { withSignedOut } from "@/lib/console/with-staff"

// POST /api/sign-in/passkey-options - signed out: a passkey sign-in's options with a one-time challenge (2 minutes, discoverable credentials)
export const POST = withSignedOut(async ({ req, runtime }) => {
  return Response.json(await signInOptions(runtime.db, relyingParty(req.headers, req.url)))
})
