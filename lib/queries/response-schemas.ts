import { z } from "zod"
import { approvalRequestSchema } from "@/lib/schemas/approvals"
import { conversionSchema, quoteExecutionSchema } from "@/lib/schemas/records"

/** GET /api/quotes (and the stream's `quotes` event): one schema for both. */
export { quoteSnapshotSchema } from "@/lib/schemas/stream"

/** GET /api/conversions/lookup: the conversion an id or a ref_id names, and which of the two it matched. */
export const conversionLookupSchema = z.object({
  conversion: conversionSchema,
  matched_by: z.enum(["id", "ref_id"]),
})

/** A create's answer: the record (200/201), or the approval request it became (202). */
export const executionOrRequestSchema = z.union([approvalRequestSchema, quoteExecutionSchema])
export const conversionOrRequestSchema = z.union([approvalRequestSchema, conversionSchema])
