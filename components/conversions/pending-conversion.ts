import { z } from "zod"
import { keptFormExtrasShape } from "@/components/forms/kept-values"
import { type PendingStore, pendingStore } from "@/lib/queries/pending-submission"
import { conversionCreateSchema } from "@/lib/schemas/conversion"
import type { ConversionBody, ConversionFormValues } from "./form-model"

/** sessionStorage key of a conversion sent from the confirm step whose answer was not seen yet. */
export const PENDING_CONVERSION_KEY = "console.conversions.pending"

/**
 * A conversion that left the browser and whose answer was not seen (yet): after a reload
 * the form asks the console what became of its ref_id, and sends it again only on a click.
 */
export interface PendingConversion {
  version: 1
  refId: string
  body: ConversionBody
  values: ConversionFormValues
  sent: boolean
  savedAt: string
}

const pendingConversionSchema = z.object({
  version: z.literal(1),
  refId: z.string().min(1),
  body: conversionCreateSchema.transform((body) => ({ ...body, ref_id: body.ref_id ?? "" })),
  values: z.object({
    profile_id: z.string(),
    source_asset: z.string(),
    target_asset: z.string(),
    amount: z.string(),
    ...keptFormExtrasShape,
  }),
  sent: z.boolean(),
  savedAt: z.string(),
})

export const pendingConversions: PendingStore<PendingConversion> = pendingStore<PendingConversion>(
  PENDING_CONVERSION_KEY,
  pendingConversionSchema,
  (pending) => pending.body.profile_id === pending.values.profile_id,
)
