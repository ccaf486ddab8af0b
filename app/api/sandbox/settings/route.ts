import { readJson, withStaff } from "@/lib/console/with-staff"
import { consoleRuntime } from "@/lib/console/runtime"
import { rememberFaults, requireSandboxMode } from "@/lib/console/sandbox-tools"
import { log } from "@/lib/log"
import { faultSettingsUpdateSchema } from "@/lib/sandbox/schemas"

// GET /api/sandbox/settings - the sandbox's settle delay, rate limits and fault rules
export const GET = withStaff("admin", async () => {
  requireSandboxMode()
  const { upstream } = await consoleRuntime()
  const settings = await upstream.getFaults()
  rememberFaults(settings)
  return Response.json(settings)
})

// PUT /api/sandbox/settings - change them (fields left out stay; {"rules": []} clears every fault)
export const PUT = withStaff("admin", async ({ req, staff }) => {
  requireSandboxMode()
  const patch = faultSettingsUpdateSchema.parse(await readJson(req))
  const { upstream } = await consoleRuntime()
  const settings = await upstream.putFaults(patch)
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
