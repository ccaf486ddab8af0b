import { listDeliveries } from "@/lib/console/notify/inbox"
import { withStaff } from "@/lib/console/with-staff"
import { deliveriesQuerySchema } from "@/lib/schemas/notify"

// GET /api/admin/deliveries?state=parked - the latest 100 deliveries (email, chat, webhook), parked ones first, each with its error
export const GET = withStaff("admin", async ({ query, runtime }) => {
  const { state } = deliveriesQuerySchema.parse(query)
  return Response.json({ items: await listDeliveries(runtime.db, { state }) })
})
