import { listConsoleTransfers } from "@/lib/console/transfers"
import { withStaff } from "@/lib/console/with-staff"
import { transferListQuerySchema } from "@/lib/schemas/transfer"

// GET /api/transfers - the service's transfers (deposits, withdrawals, internal legs), filtered and paged by its cursor
export const GET = withStaff("support", async ({ query, runtime }) => {
  return Response.json(await listConsoleTransfers(runtime.upstream, transferListQuerySchema.parse(query)))
})
