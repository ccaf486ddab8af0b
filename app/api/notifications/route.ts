import { pollNotifications } from "@/lib/console/notifications"
import { withStaff } from "@/lib/console/with-staff"
import { notificationQuerySchema } from "@/lib/schemas/notifications"

// GET /api/notifications?since=… - the signed-in person's placements that reached a final
// status and their requests that were decided, since the cursor of the last answer
export const GET = withStaff("trader", async ({ query, runtime, staff }) => {
  const { since } = notificationQuerySchema.parse(query)
  return Response.json(await pollNotifications(runtime, staff, since ? new Date(since) : null, { eventsCoverOrchestrations: runtime.events?.covering() ?? false }))
})
