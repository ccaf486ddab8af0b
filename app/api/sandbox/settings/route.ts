import { readJson } from "@/lib/console/http"
import { withStaff } from "@/lib/console/with-staff"
import { rememberFaults, requireSandboxMode } from "@/lib/console/sandbox-tools"
import { log } from "@/lib/log"
import { faultSettingsUpdateSchema } from "@/lib/schemas/sandbox-tools"

// GET /api/sandbox/settings - the sandbox's settle delay, rate limits and fault rules
export const GET = withStaff("admin", async ({ runtime }) => {
  requireSandboxMode()
  const settings = await runtime.upstream.getFaults()
  rememberFaults(settings)
  return Response.json(settings)
})

// PUT /api/sandbox/settings - change them (fields left out stay; {"rules": []} clears every fault)
export const PUT = withStaff("admin", async ({ req, staff, runtime }) => {
  requireSandboxMode()
  const patch = faultSettingsUpdateSchema.parse(await readJson(req))
  const settings = await runtime.upstream.putFaults(patch)
  const status = rememberFaults(settings)
  log.info("sandbox.settings_changed", {
    staff: staff.email,
    fields: Object.keys(patch),
    activeRules: status.active_rules,
    settleDelayMs: settings.settle_delay_ms,
    rateLimits: settings.rate_limits,
  })
  return Response.json(settings)
})
