import { z } from "zod"
import { listDecisions } from "@/lib/console/approvals/decision-trail"
import { withStaff } from "@/lib/console/with-staff"
import { isUuid } from "@/lib/schemas/common"

const querySchema = z.strictObject({
  request_id: z.string().refine(isUuid, "must be a request id (a UUID)").optional(),
  limit: z.coerce.number().int("must be a whole number").min(1, "at least 1").max(500, "at most 500").default(100),
})

// GET /api/audit/decisions[?request_id=…] - every approve and reject attempt (refused ones too): outcome, credential, user verification, digest signed
export const GET = withStaff("admin", async ({ query, runtime }) => {
  const q = querySchema.parse(query)
  return Response.json({ items: await listDecisions(runtime.db, { requestId: q.request_id, limit: q.limit }) })
})
