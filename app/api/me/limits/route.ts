import { preTradeFacts } from "@/lib/console/pre-trade"
import { withStaff } from "@/lib/console/with-staff"

// GET /api/me/limits - the signed-in staff member's limits, used today (UTC), approval thresholds and retype sizes
export const GET = withStaff("viewer", async ({ staff, runtime }) => {
  return Response.json(await preTradeFacts(runtime.db, staff, new Date()))
})
