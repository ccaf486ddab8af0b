import { z } from "zod"
import { withdrawInvitation } from "@/lib/auth/staff"
import { withStaff } from "@/lib/console/with-staff"

const paramsSchema = z.object({ id: z.uuid({ error: "must be an invitation id (a UUID)" }) })

// DELETE /api/admin/staff/invitations/{id} - withdraw a pending invitation: its link stops working; audited
export const DELETE = withStaff<{ id: string }>("admin", async ({ params, staff, runtime }) => {
  const { id } = paramsSchema.parse(params)
  await withdrawInvitation(runtime.db, staff, id)
  return new Response(null, { status: 204 })
})
