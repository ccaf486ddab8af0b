import { z } from "zod"
import { assertionSchema } from "@/lib/schemas/approvals"
import { STABLECOINS } from "@/lib/schemas/assets"
import { EVEN_WITH_FIELD_ERRORS, idSchema, refIdSchema, requiredOr, serviceRefIdSchema } from "@/lib/schemas/common"
import { metadataSchema } from "@/lib/schemas/metadata"
import { dateTimeFilterSchema, orderSchema, pagingShape } from "@/lib/schemas/paging"
import { FIAT_DECIMALS } from "@/lib/money"
import { amountSchema } from "@/lib/schemas/money"

export const CONVERSION_ASSETS = ["USD", ...STABLECOINS] as const
export type ConversionAsset = (typeof CONVERSION_ASSETS)[number]
export const CONVERSION_STATUSES = ["CREATED", "SETTLED", "CANCELLED"] as const

/** USD converts to each stablecoin and each stablecoin to USD; nothing else. */
export function isValidConversionPair(source: string, target: string): boolean {
  const stable = STABLECOINS as readonly string[]
  return (source === "USD" && stable.includes(target)) || (stable.includes(source) && target === "USD")
}

function isConversionAsset(value: unknown): value is ConversionAsset {
  return (CONVERSION_ASSETS as readonly unknown[]).includes(value)
}

/** The assets a conversion from `source` may go to (for narrowing the form's choices). */
export function conversionTargets(source: string): ConversionAsset[] {
  return CONVERSION_ASSETS.filter((target) => isValidConversionPair(source, target))
}

const assetSchema = z.enum(CONVERSION_ASSETS, { error: requiredOr(`must be one of ${CONVERSION_ASSETS.join(", ")}`) })

/**
 * Body of "create a stablecoin conversion" with the service's rules (the amount exactly as
 * its pattern allows, any ref_id up to 255 characters, kept as sent), shared by the form,
 * the console API and the sandbox.
 */
export const conversionCreateSchema = z
  .strictObject({
    profile_id: idSchema,
    amount: amountSchema(FIAT_DECIMALS),
    source_asset: assetSchema,
    target_asset: assetSchema,
    ref_id: serviceRefIdSchema.optional(),
    metadata: metadataSchema.optional(),
    identity_id: idSchema.optional(),
    account_id: idSchema.optional(),
    recipient_profile_id: idSchema.optional(),
  })
  .superRefine((body, ctx) => {
    // The body as sent (see EVEN_WITH_FIELD_ERRORS): the pair is judged when both assets
    // are known ones; an unknown or missing asset has its own message already.
    const { source_asset: source, target_asset: target } = body as Record<string, unknown>
    if (!isConversionAsset(source) || !isConversionAsset(target)) return
    if (!isValidConversionPair(source, target)) {
      ctx.addIssue({
        code: "custom",
        path: ["target_asset"],
        message:
          source === target
            ? "must differ from source_asset"
            : "USD converts to USDP, PYUSD or USDG and back; stablecoin to stablecoin is not allowed",
      })
    }
  }, EVEN_WITH_FIELD_ERRORS)

export type ConversionCreate = z.infer<typeof conversionCreateSchema>

/** The console API's body: the same, with `ref_id` required and the console's rule for it (see consoleQuoteExecutionCreateSchema). */
export const consoleConversionCreateSchema = conversionCreateSchema.safeExtend({
  ref_id: refIdSchema,
  /** The maker's passkey assertion, for an order at or over the policy's step_up_over (STEP_UP=webauthn). */
  step_up: assertionSchema.optional(),
})

const dateTimeFilter = dateTimeFilterSchema.optional()

/**
 * Filters of the conversion list, as the service takes them: `ref_id` is any ref_id a
 * record can carry (another client of the service may have chosen it).
 */
export const conversionListQuerySchema = z.strictObject({
  profile_id: idSchema.optional(),
  ref_id: serviceRefIdSchema.optional(),
  "created_at.begin": dateTimeFilter,
  "created_at.end": dateTimeFilter,
  "updated_at.begin": dateTimeFilter,
  "updated_at.end": dateTimeFilter,
  order: orderSchema.optional(),
  ...pagingShape,
})
export type ConversionListQuery = z.infer<typeof conversionListQuerySchema>
