import { reconcileNow } from "@/lib/console/runtime"
import { withStaff } from "@/lib/console/with-staff"
import { log } from "@/lib/log"

// POST /api/audit/reconcile - resolve PENDING/UNKNOWN intents older than RECONCILE_AFTER_MS (30 s by default) now
export const POST = withStaff("admin", async ({ staff }) => {
  const report = await reconcileNow()
  log.info("reconciler.requested", { staff: staff.email, ...report })
  return Response.json(report)
})
