import { profileStatement } from "@/lib/console/statements/statement"
import { withStaff } from "@/lib/console/with-staff"
import { statementQuerySchema } from "@/lib/schemas/statements"

// GET /api/statements - one profile's statement over whole UTC days (from, to inclusive; at most 31): per asset opening, credits, debits, fees, closing and the tie-out; every movement with its running balance; records in flight at the cutoff; volume and VWAP per market and side
export const GET = withStaff("support", async ({ query, runtime }) => {
  const q = statementQuerySchema.parse(query)
  await runtime.upstream.getProfile(q.profileId)
  return Response.json(await profileStatement(runtime, q))
})
