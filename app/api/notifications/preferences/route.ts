import { readJson } from "@/lib/console/http"
import { readPreferences, savePreferences } from "@/lib/console/notify/inbox"
import { withStaff } from "@/lib/console/with-staff"
import { env } from "@/lib/env"
import { preferencesBodySchema } from "@/lib/schemas/notify"

// GET /api/notifications/preferences - per kind, whether you get it in the console and by email
export const GET = withStaff("viewer", async ({ runtime, staff }) => {
  return Response.json({ items: await readPreferences(runtime.db, staff.email), email_configured: env().smtp !== undefined })
})

// PUT /api/notifications/preferences - {items: [{kind, console, email}]}
export const PUT = withStaff("viewer", async ({ req, runtime, staff }) => {
  const body = preferencesBodySchema.parse(await readJson(req))
  return Response.json({ items: await savePreferences(runtime.db, staff.email, body.items), email_configured: env().smtp !== undefined })
})
