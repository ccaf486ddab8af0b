import { listEventLog } from "@/lib/console/event-log"
import { withStaff } from "@/lib/console/with-staff"
import { eventLogQuerySchema } from "@/lib/schemas/events"

// GET /api/events - the service's events the reader recorded, newest first: processed (when, by which instance), retrying, parked with the reason (filters type, status, from, to; paged)
export const GET = withStaff("admin", async ({ query, runtime }) => {
  return Response.json(await listEventLog(runtime.db, runtime.events, eventLogQuerySchema.parse(query)))
})
