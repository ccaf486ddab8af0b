import { z } from "zod"
import { refIdSchema } from "@/lib/schemas/common"

/**
 * The schema of a form's kept submission (lib/queries/pending-submission): its body, the
 * form's values (each form's own fields, and the metadata rows and on-behalf-of ids every
 * form has) and whatever else the form needs to show it again.
 */
export function keptSubmissionSchema<Body extends z.ZodType, Values extends z.ZodRawShape, Extra extends z.ZodRawShape>(body: Body, values: Values, extra: Extra) {
  return z.object({
    version: z.literal(1),
    refId: refIdSchema,
    body,
    values: z.object({
      ...values,
      metadata: z.array(z.object({ key: z.string(), value: z.string() })),
      identity_id: z.string(),
      account_id: z.string(),
      recipient_profile_id: z.string(),
    }),
    sent: z.boolean(),
    savedAt: z.string(),
    ...extra,
  })
}
