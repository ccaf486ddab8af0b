import { withStaff } from "@/lib/console/with-staff"
import { requireSandboxMode, sandboxFaultsStatus } from "@/lib/console/sandbox-tools"

// GET /api/sandbox/status - whether any fault is active, for the banner every signed-in
// role sees (cached up to 5 s). Only the count and the operations' names: never the
// seed, the settings or the rules themselves, which stay admin-only.
export const GET = withStaff("viewer", async () => {
  requireSandboxMode()
  const { faults_active, active_rules, operations } = await sandboxFaultsStatus()
  return Response.json({ faults_active, active_rules, operations })
})
