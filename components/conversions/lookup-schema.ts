import { z } from "zod"
import { conversionSchema } from "@/lib/schemas/records"

/** The answer of GET /api/conversions/lookup. Loaded with the first answer (see queries.ts). */
export const conversionLookupSchema = z.object({
  conversion: conversionSchema,
  matched_by: z.enum(["id", "ref_id"]),
})
