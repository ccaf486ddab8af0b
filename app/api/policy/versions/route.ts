import { z } from "zod"
import { listPolicyVersions } from "@/lib/console/policy"
import { withStaff } from "@/lib/console/with-staff"

const querySchema = z.strictObject({
  limit: z.coerce.number({ error: "must be a whole number" }).int("must be a whole number").min(1, "must be at least 1").max(200, "must be at most 200").default(50),
})

// GET /api/policy/versions[?limit=…] - every saved policy, kept and numbered (newest first): version, policy, created_at, created_by
export const GET = withStaff("admin", async ({ query, runtime }) => {
  const q = querySchema.parse(query)
  return Response.json({ items: await listPolicyVersions(runtime.db, q.limit) })
})
