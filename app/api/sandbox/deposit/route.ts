import { readJson } from "@/lib/console/http"
import { withStaff } from "@/lib/console/with-staff"
import { requireSandboxMode } from "@/lib/console/sandbox-tools"
import { log } from "@/lib/log"
import { sandboxDepositRequestSchema } from "@/lib/schemas/sandbox-tools"

// POST /api/sandbox/deposit - fund a sandbox profile with an asset
export const POST = withStaff("admin", async ({ req, staff, runtime }) => {
  requireSandboxMode()
  const input = sandboxDepositRequestSchema.parse(await readJson(req))
  const { activity_id } = await runtime.upstream.sandboxDeposit(input.profile_id, { asset: input.asset, amount: input.amount })
  log.info("sandbox.deposit", { staff: staff.email, profileId: input.profile_id, asset: input.asset, amount: input.amount })
  return Response.json({ activity_id: activity_id ?? null, profile_id: input.profile_id, asset: input.asset, amount: input.amount })
})
