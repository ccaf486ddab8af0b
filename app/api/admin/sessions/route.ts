import { listSessions } from "@/lib/auth/sessions"
import { database } from "@/lib/console/database"
import { withStaff } from "@/lib/console/with-staff"

// GET /api/admin/sessions - every open session: who, role, since, last seen, from where
export const GET = withStaff("admin", async () => {
  const { db } = await database()
  return Response.json({ items: await listSessions(db) })
})
