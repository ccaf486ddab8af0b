import { passkeyCounts } from "@/lib/auth/passkeys"
import { listSessions } from "@/lib/auth/sessions"
import { withStaff } from "@/lib/console/with-staff"

// GET /api/admin/sessions - every open session: who, role, since, last seen, from where, and how many passkeys that person has
export const GET = withStaff("admin", async ({ runtime }) => {
  const [sessions, passkeys] = await Promise.all([listSessions(runtime.db), passkeyCounts(runtime.db)])
  return Response.json({ items: sessions.map((s) => ({ ...s, passkeys: passkeys.get(s.email.toLowerCase()) ?? 0 })) })
})
