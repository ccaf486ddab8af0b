import { readJson } from "@/lib/console/http"
import { markRead, readInbox } from "@/lib/console/notify/inbox"
import { withStaff } from "@/lib/console/with-staff"
import { markReadSchema } from "@/lib/schemas/notify"

// POST /api/notifications/inbox/read - mark your notifications read (or unread): {ids?: [...], read?: true}; no ids: all of them
export const POST = withStaff("viewer", async ({ req, runtime, staff }) => {
  const body = markReadSchema.parse(await readJson(req))
  const changed = await markRead(runtime.db, staff.email, body)
  const { unread } = await readInbox(runtime.db, staff.email, { unreadOnly: true })
  return Response.json({ changed, unread })
})
