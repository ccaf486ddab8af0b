import { z } from "zod"

/** The form fields every kept submission keeps alike, as typed: metadata rows and the on-behalf-of ids (see lib/queries/pending-submission). */
export const keptFormExtrasShape = {
  metadata: z.array(z.object({ key: z.string(), value: z.string() })),
  identity_id: z.string(),
  account_id: z.string(),
  recipient_profile_id: z.string(),
}
