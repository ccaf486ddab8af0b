import { searchAnything } from "@/lib/console/search"
import { withStaff } from "@/lib/console/with-staff"
import { searchQuerySchema } from "@/lib/schemas/search"

// GET /api/search?q= - what a pasted id or ref_id is: executions, conversions, intents, profiles
export const GET = withStaff("support", async ({ query, runtime }) => {
  const { q } = searchQuerySchema.parse(query)
  return Response.json(await searchAnything(runtime, q))
})
