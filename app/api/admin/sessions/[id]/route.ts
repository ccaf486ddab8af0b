import { z } from "zod"
import { endSession } from "@/lib/auth/sessions"
import { relyingParty } from "@/lib/auth/webauthn"
import { readJson } from "@/lib/console/http"
import { steppedUpToEnd } from "@/lib/console/session-step-up"
import { env } from "@/lib/env"
import { notFound } from "@/lib/problem"
import { withStaff } from "@/lib/console/with-staff"
import { assertionSchema } from "@/lib/schemas/approvals"

const paramsSchema = z.object({ id: z.uuid({ error: "must be a session id (a UUID)" }) })
const bodySchema = z.strictObject({ step_up: assertionSchema.optional() })

// DELETE /api/admin/sessions/{id} - (someone else's, with STEP_UP=webauthn: a passkey assertion in `step_up`; without one, 403 step_up_required) ends a session at once, on every instance; audited
export const DELETE = withStaff<{ id: string }>("admin", async ({ req, params, staff, runtime }) => {
  const { id } = paramsSchema.parse(params)
  // A body is only needed for step-up: a DELETE without one is read as `{}`.
  const body = bodySchema.parse(req.headers.get("content-type") ? await readJson(req) : {})
  await steppedUpToEnd(runtime.db, staff, id, { mode: env().stepUp, rp: relyingParty(req.headers, req.url), assertion: body.step_up })
  const ended = await endSession(runtime.db, id, { kind: "session_ended", actor: staff.email, reason: "ended by an admin" })
  if (!ended) throw notFound("No open session has this id (it may have ended already).")
  return new Response(null, { status: 204 })
})
