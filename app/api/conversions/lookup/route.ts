import { z } from "zod"
import { queryObject } from "@/lib/console/http"
import { consoleRuntime } from "@/lib/console/runtime"
import { withStaff } from "@/lib/console/with-staff"
import { refIdSchema } from "@/lib/schemas/common"
import { conversionCreateInFlight, lookupConversion } from "./lookup"

const lookupQuerySchema = z.strictObject({ q: refIdSchema })

// GET /api/conversions/lookup?q= - one conversion by its id, else by its ref_id
export const GET = withStaff("support", async ({ req }) => {
  const { q } = lookupQuerySchema.parse(queryObject(req))
  const { upstream, db } = await consoleRuntime()
  return Response.json(await lookupConversion(upstream, q, (refId) => conversionCreateInFlight(db, refId)))
})
