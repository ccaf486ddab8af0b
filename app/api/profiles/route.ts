import { z } from "zod"
import { queryObject } from "@/lib/console/http"
import { consoleRuntime } from "@/lib/console/runtime"
import { withStaff } from "@/lib/console/with-staff"

const profileListQuerySchema = z.strictObject({
  limit: z.coerce.number({ error: "must be a whole number" }).int("must be a whole number").min(1, "at least 1").max(1000, "at most 1000").optional(),
  page_cursor: z.string({ error: "must be text" }).max(512, "at most 512 characters").optional(),
})

// GET /api/profiles - the service's profiles, with its paging (limit, page_cursor)
export const GET = withStaff("viewer", async ({ req }) => {
  const query = profileListQuerySchema.parse(queryObject(req))
  const { upstream } = await consoleRuntime()
  return Response.json(await upstream.listProfiles(query))
})
