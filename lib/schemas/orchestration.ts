import { z } from "zod"
import { FIAT_DECIMALS } from "@/lib/money"
import { CONVERSION_ASSETS, isValidConversionPair } from "@/lib/schemas/conversion"
import { EVEN_WITH_FIELD_ERRORS, idSchema, requiredOr, serviceRefIdSchema } from "@/lib/schemas/common"
import { metadataSchema } from "@/lib/schemas/metadata"
import { amountSchema } from "@/lib/schemas/money"
import { dateTimeFilterSchema, orderSchema, pagingShape } from "@/lib/schemas/paging"

/**
 * The service's Orchestrations API (/v2/orchestration/orchestrations), which replaces
 * its stablecoin conversions: the profile-to-profile conversion flow, the one the console
 * and the embedded sandbox use. Written from the service's OpenAPI file.
 */

/** PENDING: waiting for approval at the service (→ PROCESSING, or REJECTED: final, nothing moved). */
export const ORCHESTRATION_STATUSES = ["PENDING", "PROCESSING", "COMPLETED", "FAILED", "REJECTED"] as const
export type OrchestrationStatus = (typeof ORCHESTRATION_STATUSES)[number]
export const TRANSFER_STATUSES = ["PENDING", "PROCESSING", "COMPLETED", "FAILED"] as const

const assetSchema = z.enum(CONVERSION_ASSETS, { error: requiredOr(`must be one of ${CONVERSION_ASSETS.join(", ")}`) })
const profileEndSchema = z.strictObject(
  { profile: z.strictObject({ profile_id: idSchema }, { error: requiredOr("must be an object with profile_id") }) },
  { error: requiredOr("must be an object with profile") },
)

/**
 * Body of "create orchestration" for the profile-to-profile flow: `ref_id` is required
 * (the service's idempotency key), amounts as conversions take them (2 decimals), the
 * same pairs (USD to a stablecoin and back).
 */
export const orchestrationCreateSchema = z
  .strictObject({
    ref_id: serviceRefIdSchema,
    source_asset: assetSchema,
    destination_asset: assetSchema,
    source_amount: amountSchema(FIAT_DECIMALS),
    source: profileEndSchema,
    destination: profileEndSchema,
    metadata: metadataSchema.optional(),
    identity_id: idSchema.optional(),
    account_id: idSchema.optional(),
  })
  .superRefine((body, ctx) => {
    const { source_asset: source, destination_asset: target } = body as Record<string, unknown>
    const known = (v: unknown) => (CONVERSION_ASSETS as readonly unknown[]).includes(v)
    if (!known(source) || !known(target)) return
    if (!isValidConversionPair(source as string, target as string)) {
      ctx.addIssue({
        code: "custom",
        path: ["destination_asset"],
        message:
          source === target
            ? "must differ from source_asset"
            : "USD converts to USDP, PYUSD or USDG and back; stablecoin to stablecoin is not allowed",
      })
    }
  }, EVEN_WITH_FIELD_ERRORS)
export type OrchestrationCreate = z.infer<typeof orchestrationCreateSchema>

const dateTimeFilter = dateTimeFilterSchema.optional()

/** Filters of the orchestration list that take one value; the list filters are read repeated. */
export const orchestrationListQuerySchema = z.strictObject({
  "created_at.lt": dateTimeFilter,
  "created_at.lte": dateTimeFilter,
  "created_at.eq": dateTimeFilter,
  "created_at.gte": dateTimeFilter,
  "created_at.gt": dateTimeFilter,
  order: orderSchema.optional(),
  ...pagingShape,
})

/** Filters that take a list (`?status=PROCESSING&status=FAILED`), at most 100 values each. */
export const ORCHESTRATION_LIST_FILTERS = [
  "profile_id",
  "source_asset",
  "destination_asset",
  "status",
  "orchestration_id",
  "orchestration_rule_id",
  "ref_id",
] as const
export type OrchestrationListFilter = (typeof ORCHESTRATION_LIST_FILTERS)[number]

export type OrchestrationListQuery = z.infer<typeof orchestrationListQuerySchema> & {
  [K in OrchestrationListFilter]?: string[] | undefined
}

const transferSchema = z.object({ transfer_id: z.string().optional(), status: z.enum(TRANSFER_STATUSES).optional() })
const profileRefSchema = z.looseObject({ profile: z.object({ profile_id: z.string().optional() }).optional() })

/**
 * An Orchestration as the service answers it. The service marks no field required; the
 * console cannot work with one that lacks an id or a status, so those two are required.
 */
export const orchestrationSchema = z.object({
  id: z.string().min(1),
  profile_id: z.string().optional(),
  identity_id: z.string().optional(),
  account_id: z.string().optional(),
  customer_id: z.string().optional(),
  ref_id: z.string().optional(),
  source_asset: z.string().optional(),
  destination_asset: z.string().optional(),
  source_amount: z.string().optional(),
  source_transfer: transferSchema.optional(),
  destination_transfer: transferSchema.optional(),
  status: z.string().min(1),
  fail_reason: z.object({ detail: z.string().optional() }).optional(),
  source: profileRefSchema.optional(),
  destination: profileRefSchema.optional(),
  orchestration_rule_id: z.string().optional(),
  created_at: z.string().optional(),
  updated_at: z.string().optional(),
  metadata: z.record(z.string(), z.string()).optional(),
})
export type Orchestration = z.infer<typeof orchestrationSchema>

/**
 * The list's answer: `items`, and the deprecated `orchestrations` (same content) that older
 * answers carry alone. Read `items`, fall back to `orchestrations`; one of them is required.
 */
export const orchestrationPageSchema = z
  .object({
    items: z.array(orchestrationSchema).optional(),
    orchestrations: z.array(orchestrationSchema).optional(),
    next_page_cursor: z.string().optional(),
  })
  .refine((page) => page.items !== undefined || page.orchestrations !== undefined, { message: "must have items (or the deprecated orchestrations)", path: ["items"] })
export type OrchestrationPage = z.infer<typeof orchestrationPageSchema>
