import { listSessions } from "@/lib/auth/sessions"
import { withStaff } from "@/lib/console/with-staff"

// GET /api/admin/sessions - every open session: who, role, since, last seen, from where
export const GET = withStaff("admin", async ({ runtime }) => {
  return Response.json({ items: await listSessions(runtime.db) })
})
