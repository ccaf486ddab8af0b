import { staffRef } from "@/lib/auth/staff-ref"
import { readJson } from "@/lib/console/http"
import { retryDeliveries } from "@/lib/console/notify/worker"
import { withStaff } from "@/lib/console/with-staff"
import { log } from "@/lib/log"
import { retryBodySchema } from "@/lib/schemas/notify"

// POST /api/admin/deliveries/retry - send parked deliveries again: {ids: [...]}; answers how many were parked and are due now
export const POST = withStaff("admin", async ({ req, runtime, staff }) => {
  const { ids } = retryBodySchema.parse(await readJson(req))
  const retried = await retryDeliveries(runtime.db, ids)
  log.info("notify.deliveries_retried", { retried, by: staffRef(staff.email) })
  return Response.json({ retried })
})
