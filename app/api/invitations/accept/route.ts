import { registerPasskey } from "@/lib/auth/passkeys"
import { hashPassword, passwordWeakness } from "@/lib/auth/passwords"
import { acceptInvitation, invitationByToken, invitationUnusable } from "@/lib/auth/staff"
import { relyingParty } from "@/lib/auth/webauthn"
import { readJson } from "@/lib/console/http"
import { withSignedOut } from "@/lib/console/with-staff"
import { validationFailed } from "@/lib/problem"
import { acceptBodySchema } from "@/lib/schemas/staff"

// POST /api/invitations/accept - signed out, with an invitation's token: set a password and/or register a passkey; the invitation is used once; 410 invitation_unusable
export const POST = withSignedOut(async ({ req, runtime }) => {
  const body = acceptBodySchema.parse(await readJson(req))
  const found = await invitationByToken(runtime.db, body.token)
  if (found.state !== "pending" || !found.invitation) throw invitationUnusable(found.state === "pending" ? "unknown" : found.state)
  const email = found.invitation.email
  if (body.password !== undefined) {
    const weakness = passwordWeakness(body.password, [email, email.split("@")[0] ?? ""])
    if (weakness) throw validationFailed({ password: weakness })
  }
  const passwordHash = body.password !== undefined ? await hashPassword(body.password) : null
  const rp = relyingParty(req.headers, req.url)
  const passkey = body.passkey
  const staff = await acceptInvitation(runtime.db, body.token, { passwordHash }, async (tx, who) => {
    if (passkey) await registerPasskey(tx, who, rp, passkey)
  })
  return Response.json({ email: staff.email, role: staff.role, password: passwordHash !== null, passkey: passkey !== undefined })
})
