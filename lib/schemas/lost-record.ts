import { z } from "zod"
import { idSchema } from "@/lib/schemas/common"

/**
 * The sandbox fault "lose a record": the service forgets a quote execution or a
 * conversion it holds (the balances it moved stay moved, no event is sent). What the
 * statements' reconciliation exists to catch: a console intent whose record the service
 * no longer lists. Client safe.
 */
export const lostRecordSchema = z.strictObject({ record_id: idSchema })
export type LostRecord = z.infer<typeof lostRecordSchema>

/** The console's POST /api/sandbox/lost-record: the same body. */
export const lostRecordRequestSchema = lostRecordSchema

/** What both answer: the record forgotten and what it was. */
export const lostRecordAnswerSchema = z.object({
  record_id: z.string(),
  kind: z.enum(["execution", "conversion"]),
  profile_id: z.string(),
})
export type LostRecordAnswer = z.infer<typeof lostRecordAnswerSchema>
