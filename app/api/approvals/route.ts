import { listApprovals } from "@/lib/console/approvals/reads"
import { withStaff } from "@/lib/console/with-staff"
import { approvalListQuerySchema } from "@/lib/schemas/approvals"

// GET /api/approvals - approval requests, pending first, with the count still pending
export const GET = withStaff("trader", async ({ query, runtime, staff }) => {
  return Response.json(await listApprovals(runtime.db, approvalListQuerySchema.parse(query), new Date(), staff))
})
