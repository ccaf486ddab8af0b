import { z } from "zod"
import { keptSubmissionSchema } from "@/components/forms/kept-values"
import { type PendingStore, pendingStore } from "@/lib/queries/pending-submission"
import type { KeptSubmission } from "@/lib/queries/submission"
import { conversionCreateSchema } from "@/lib/schemas/conversion"
import type { ConversionBody, ConversionFormValues } from "./form-model"

/** sessionStorage key of a conversion sent from the confirm step whose answer was not seen yet. */
export const PENDING_CONVERSION_KEY = "console.conversions.pending"

/**
 * A conversion that left the browser and whose answer was not seen (yet): after a reload
 * the form asks the console what became of its ref_id, and sends it again only on a click.
 */
export type PendingConversion = KeptSubmission<ConversionBody> & { values: ConversionFormValues }

const pendingConversionSchema = keptSubmissionSchema(
  conversionCreateSchema.transform((body) => ({ ...body, ref_id: body.ref_id ?? "" })),
  { profile_id: z.string(), source_asset: z.string(), target_asset: z.string(), amount: z.string() },
  {},
)

export const pendingConversions: PendingStore<PendingConversion> = pendingStore<PendingConversion>(
  PENDING_CONVERSION_KEY,
  pendingConversionSchema,
  (pending) => pending.body.profile_id === pending.values.profile_id,
)
