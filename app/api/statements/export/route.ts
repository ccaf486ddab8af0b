import { z } from "zod"
import { statementCsv } from "@/lib/console/statements/export"
import { statementPdf } from "@/lib/console/statements/pdf"
import { profileStatement } from "@/lib/console/statements/statement"
import { withStaff } from "@/lib/console/with-staff"
import { statementQuerySchema } from "@/lib/schemas/statements"

const formatSchema = z.object({ format: z.enum(["csv", "pdf"], { error: "must be csv or pdf" }) })

// GET /api/statements/export?profile_id=&from=&to=&format=csv|pdf - the statement as CSV (one row per leg) or as a PDF statement (header, period, basis, per-asset summary, tie-out, movements, page numbers), streamed
export const GET = withStaff("support", async ({ query, runtime }) => {
  const { format: _format, ...rest } = query
  const { format } = formatSchema.parse({ format: query.format })
  const q = statementQuerySchema.parse(rest)
  const profile = await runtime.upstream.getProfile(q.profileId)
  const statement = await profileStatement(runtime, q)
  return format === "pdf" ? statementPdf(statement, profile.nickname) : statementCsv(statement)
})
