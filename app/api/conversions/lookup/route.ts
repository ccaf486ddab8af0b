import { z } from "zod"
import { lookupConversionFor } from "@/lib/console/conversion-lookup"
import { withStaff } from "@/lib/console/with-staff"
import { serviceRefIdSchema } from "@/lib/schemas/common"

// Any ref_id a record can carry (another client of the service may have chosen it).
const lookupQuerySchema = z.strictObject({ q: serviceRefIdSchema })

// GET /api/conversions/lookup?q= - one conversion by its id, else by its ref_id
export const GET = withStaff("support", async ({ query, runtime }) => {
  const { q } = lookupQuerySchema.parse(query)
  return Response.json(await lookupConversionFor(runtime, q))
})
