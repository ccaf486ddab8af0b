import { staffRef } from "@/lib/auth/staff-ref"
import { readJson } from "@/lib/console/http"
import { requireSandboxMode } from "@/lib/console/sandbox-tools"
import { generateSandboxHistory } from "@/lib/console/sandbox-history"
import { withStaff } from "@/lib/console/with-staff"
import { errorKind, log } from "@/lib/log"
import { historyRequestSchema } from "@/lib/schemas/sandbox-history"

// POST /api/sandbox/history - "generate a past week": the 7 UTC days before today filled with settled trades, conversions, orchestrations and deposits at the sandbox, the console's intents (and approvals) for those its desk placed, and a balance snapshot at each cutoff; once: 409 history_exists when the sandbox already has a past
export const POST = withStaff("admin", async ({ req, staff, runtime }) => {
  requireSandboxMode()
  const input = historyRequestSchema.parse(await readJson(req))
  const seed = input.seed ?? 1
  try {
    const answer = await generateSandboxHistory(runtime, { ...input, seed })
    log.info("sandbox.history_generated", { staff: staffRef(staff.email), seed: answer.seed, from: answer.from, to: answer.to, ...answer.counts })
    return Response.json(answer, { status: 201 })
  } catch (error) {
    log.info("sandbox.history_refused", { staff: staffRef(staff.email), seed, error: errorKind(error) })
    throw error
  }
})
