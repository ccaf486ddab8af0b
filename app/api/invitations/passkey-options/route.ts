import { registrationOptions } from "@/lib/auth/passkeys"
import { invitationByToken, invitationUnusable } from "@/lib/auth/staff"
import { relyingParty } from "@/lib/auth/webauthn"
import { readJson } from "@/lib/console/http"
import { withSignedOut } from "@/lib/console/with-staff"
import { invitationTokenSchema } from "@/lib/schemas/staff"

// POST /api/invitations/passkey-options - signed out, with an invitation's token: a passkey registration's options for the invited email; 410 invitation_unusable
export const POST = withSignedOut(async ({ req, runtime }) => {
  const { token } = invitationTokenSchema.parse(await readJson(req))
  const found = await invitationByToken(runtime.db, token)
  if (found.state !== "pending" || !found.invitation) throw invitationUnusable(found.state === "pending" ? "unknown" : found.state)
  return Response.json(await registrationOptions(runtime.db, { email: found.invitation.email, role: found.invitation.role }, relyingParty(req.headers, req.url)))
})
