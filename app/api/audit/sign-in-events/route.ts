import { z } from "zod"
import { listAuthEvents } from "@/lib/auth/sessions"
import { queryObject } from "@/lib/console/http"
import { withStaff } from "@/lib/console/with-staff"

const querySchema = z.strictObject({
  email: z.string().trim().max(200, "at most 200 characters").optional(),
  limit: z.coerce.number().int("must be a whole number").min(1, "at least 1").max(500, "at most 500").default(200),
})

// GET /api/audit/sign-in-events - sign-ins, failures, lockouts, sign-outs, ended and expired sessions
export const GET = withStaff("admin", async ({ req, runtime }) => {
  const query = querySchema.parse(queryObject(req))
  return Response.json({ items: await listAuthEvents(runtime.db, query) })
})
