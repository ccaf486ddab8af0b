import { z } from "zod"
import { statementCsv } from "@/lib/console/statements/export"
import { profileStatement } from "@/lib/console/statements/statement"
import { withStaff } from "@/lib/console/with-staff"
import { statementQuerySchema } from "@/lib/schemas/statements"

const formatSchema = z.object({ format: z.enum(["csv"], { error: "must be csv (the PDF statement is not built yet)" }) })

// GET /api/statements/export?profile_id=&from=&to=&format=csv - the statement's movements as CSV, one row per leg, streamed
export const GET = withStaff("support", async ({ query, runtime }) => {
  const { format: _format, ...rest } = query
  formatSchema.parse({ format: query.format })
  const q = statementQuerySchema.parse(rest)
  await runtime.upstream.getProfile(q.profileId)
  return statementCsv(await profileStatement(runtime, q))
})
