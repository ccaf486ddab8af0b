import { z } from "zod"
import { listPolicyChanges } from "@/lib/console/policy-changes"
import { withStaff } from "@/lib/console/with-staff"

const querySchema = z.strictObject({
  limit: z.coerce.number({ error: "must be a whole number" }).int("must be a whole number").min(1, "must be at least 1").max(200, "must be at most 200").default(20),
})

// GET /api/policy/changes[?limit=…] - the policy change waiting for a second admin (`pending`, with `pending_before`: the policy it was made against), the `version` in force, and the recent changes (newest first)
export const GET = withStaff("admin", async ({ query, runtime }) => {
  const q = querySchema.parse(query)
  return Response.json(await listPolicyChanges(runtime.db, { limit: q.limit }))
})
