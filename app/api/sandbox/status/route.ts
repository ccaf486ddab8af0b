import { withStaff } from "@/lib/console/with-staff"
import { requireSandboxMode, sandboxFaultsStatus } from "@/lib/console/sandbox-tools"

// GET /api/sandbox/status - whether any fault is active, for the banner (cached up to 5 s)
export const GET = withStaff("admin", async () => {
  requireSandboxMode()
  return Response.json(await sandboxFaultsStatus())
})
