import { staffRef } from "@/lib/auth/staff-ref"
import { readJson } from "@/lib/console/http"
import { withStaff } from "@/lib/console/with-staff"
import { requireSandboxMode } from "@/lib/console/sandbox-tools"
import { log } from "@/lib/log"
import { silentMovementRequestSchema } from "@/lib/schemas/silent-movement"

// POST /api/sandbox/silent-movement - the sandbox fault "move a balance without a record": a profile's balance changes by a signed amount and the service keeps no record (a statement's tie-out must catch it)
export const POST = withStaff("admin", async ({ req, staff, runtime }) => {
  requireSandboxMode()
  const input = silentMovementRequestSchema.parse(await readJson(req))
  const answer = await runtime.upstream.sandboxSilentMovement(input)
  log.info("sandbox.silent_movement", { staff: staffRef(staff.email), profileId: input.profile_id, asset: input.asset, amount: input.amount })
  return Response.json(answer)
})
