import { z } from "zod"
import { withStaff } from "@/lib/console/with-staff"
import { pagingShape } from "@/lib/schemas/paging"

const profileListQuerySchema = z.strictObject(pagingShape)

// GET /api/profiles - the service's profiles, with its paging (limit, page_cursor)
export const GET = withStaff("viewer", async ({ query, runtime }) => {
  return Response.json(await runtime.upstream.listProfiles(profileListQuerySchema.parse(query)))
})
