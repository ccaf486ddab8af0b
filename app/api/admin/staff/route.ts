import { inviteStaff, invitationLink } from "@/lib/auth/staff"
import { readJson } from "@/lib/console/http"
import { mailInvitation } from "@/lib/console/notify/invitation-mail"
import { staffDirectory } from "@/lib/console/staff"
import { withStaff } from "@/lib/console/with-staff"
import { env } from "@/lib/env"
import { inviteBodySchema } from "@/lib/schemas/staff"

// GET /api/admin/staff - everyone who may sign in: role, status, sign-in methods, passkeys, last sign-in, open sessions, limits, who invited them
export const GET = withStaff("admin", async ({ runtime }) => {
  return Response.json(await staffDirectory(runtime.db))
})

// POST /api/admin/staff - invite an email with a role: 201 with the one-time link (24 h) and whether it was emailed (SMTP_URL); 409 staff_exists for someone already on the staff
export const POST = withStaff("admin", async ({ req, staff, runtime }) => {
  const body = inviteBodySchema.parse(await readJson(req))
  const { token, invitation } = await inviteStaff(runtime.db, staff, body)
  const origin = env().nextAuthUrl ? new URL(env().nextAuthUrl ?? "").origin : req.nextUrl.origin
  // The link is shown once, to this admin, and emailed to the invited address when mail is configured; only its hash is kept.
  const link = invitationLink(origin, token)
  const mail = await mailInvitation(env().smtp, invitation, link)
  return Response.json({ invitation, link, ...mail }, { status: 201 })
})
