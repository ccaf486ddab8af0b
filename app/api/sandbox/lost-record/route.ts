import { staffRef } from "@/lib/auth/staff-ref"
import { readJson } from "@/lib/console/http"
import { withStaff } from "@/lib/console/with-staff"
import { requireSandboxMode } from "@/lib/console/sandbox-tools"
import { log } from "@/lib/log"
import { lostRecordRequestSchema } from "@/lib/schemas/lost-record"

// POST /api/sandbox/lost-record - the sandbox fault "lose a record": the service forgets a quote execution or conversion (its balance moves stay); the statements' reconciliation lists the console's intent as missing at the service
export const POST = withStaff("admin", async ({ req, staff, runtime }) => {
  requireSandboxMode()
  const input = lostRecordRequestSchema.parse(await readJson(req))
  const answer = await runtime.upstream.sandboxLoseRecord(input)
  log.info("sandbox.lost_record", { staff: staffRef(staff.email), recordId: answer.record_id, kind: answer.kind, profileId: answer.profile_id })
  return Response.json(answer)
})
