import { z } from "zod"
import { queryObject } from "@/lib/console/http"
import { consoleRuntime } from "@/lib/console/runtime"
import { withStaff } from "@/lib/console/with-staff"
import { serviceRefIdSchema } from "@/lib/schemas/common"
import { conversionCreateInFlight, lookupConversion } from "./lookup"

// Any ref_id a record can carry (another client of the service may have chosen it).
const lookupQuerySchema = z.strictObject({ q: serviceRefIdSchema })

// GET /api/conversions/lookup?q= - one conversion by its id, else by its ref_id
export const GET = withStaff("support", async ({ req }) => {
  const { q } = lookupQuerySchema.parse(queryObject(req))
  const { upstream, db } = await consoleRuntime()
  return Response.json(await lookupConversion(upstream, q, (refId) => conversionCreateInFlight(db, refId)))
})
