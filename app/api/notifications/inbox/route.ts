import { readInbox } from "@/lib/console/notify/inbox"
import { withStaff } from "@/lib/console/with-staff"
import { inboxQuerySchema } from "@/lib/schemas/notify"

// GET /api/notifications/inbox?unread=1 - your notifications (the latest 50, newest first) and how many are unread
export const GET = withStaff("viewer", async ({ query, runtime, staff }) => {
  const { unread } = inboxQuerySchema.parse(query)
  return Response.json(await readInbox(runtime.db, staff.email, { unreadOnly: unread === "1" }))
})
