import { placedResponse, queryObject } from "@/lib/console/http"
import { createConversion } from "@/lib/console/operations"
import { consoleRuntime } from "@/lib/console/runtime"
import { readJson, withStaff } from "@/lib/console/with-staff"
import { consoleConversionCreateSchema, conversionListQuerySchema } from "@/lib/schemas/conversion"

// POST /api/conversions - create a stablecoin conversion (exactly once per ref_id)
export const POST = withStaff("trader", async ({ req, staff }) => {
  const input = consoleConversionCreateSchema.parse(await readJson(req))
  return placedResponse(await createConversion(await consoleRuntime(), staff, input))
})

// GET /api/conversions - list, with the service's filters and paging
export const GET = withStaff("support", async ({ req }) => {
  const query = conversionListQuerySchema.parse(queryObject(req))
  const { upstream } = await consoleRuntime()
  return Response.json(await upstream.listConversions(query))
})
