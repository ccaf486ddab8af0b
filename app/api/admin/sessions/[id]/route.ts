import { z } from "zod"
import { endSession } from "@/lib/auth/sessions"
import { notFound } from "@/lib/problem"
import { withStaff } from "@/lib/console/with-staff"

const paramsSchema = z.object({ id: z.uuid({ error: "must be a session id (a UUID)" }) })

// DELETE /api/admin/sessions/{id} - ends a session at once, on every instance; audited
export const DELETE = withStaff<{ id: string }>("admin", async ({ params, staff, runtime }) => {
  const { id } = paramsSchema.parse(params)
  const ended = await endSession(runtime.db, id, { kind: "session_ended", actor: staff.email, reason: "ended by an admin" })
  if (!ended) throw notFound("No open session has this id (it may have ended already).")
  return new Response(null, { status: 204 })
})
