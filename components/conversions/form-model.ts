import { z } from "zod"
import { tryDecimal } from "@/lib/money"
import {
  CONVERSION_ASSETS,
  type ConversionAsset,
  type ConversionCreate,
  conversionCreateSchema,
  conversionTargets,
  isValidConversionPair,
} from "@/lib/schemas/conversion"
import { idSchema } from "@/lib/schemas/common"
import { metadataRowsSchema, rowsToMetadata } from "@/lib/schemas/metadata"
import { fiatAmountSchema } from "@/lib/schemas/money"


export const PAIR_RULE = "USD converts to USDP, PYUSD or USDG and back; stablecoin to stablecoin is not allowed"

/** An optional id field: blank is fine, anything else must be an id. */
const optionalId = z.string().superRefine((value, ctx) => {
  if (value.trim() === "") return
  const checked = idSchema.safeParse(value)
  if (!checked.success) ctx.addIssue({ code: "custom", message: checked.error.issues[0]?.message ?? "is not a valid id" })
})

const asset = (what: string) =>
  z.string().refine((value) => (CONVERSION_ASSETS as readonly string[]).includes(value), `choose the asset to convert ${what}`)

/**
 * The form's rules, field by field, so each message shows under its own input. The same
 * limits as `conversionCreateSchema` (the body is checked against it again on submit).
 */
export const conversionFormSchema = z
  .object({
    profile_id: z.string().trim().min(1, "choose a profile"),
    source_asset: asset("from"),
    target_asset: asset("to"),
    amount: fiatAmountSchema,
    metadata: metadataRowsSchema,
    identity_id: optionalId,
    account_id: optionalId,
    recipient_profile_id: optionalId,
  })
  .superRefine((values, ctx) => {
    if (values.source_asset && values.target_asset && !isValidConversionPair(values.source_asset, values.target_asset)) {
      ctx.addIssue({
        code: "custom",
        path: ["target_asset"],
        message: values.source_asset === values.target_asset ? "must differ from the source asset" : PAIR_RULE,
      })
    }
  })

/** What the conversion form holds while a person types: plain strings, blank when unset. */
export type ConversionFormValues = z.input<typeof conversionFormSchema>

export const EMPTY_FORM: ConversionFormValues = {
  profile_id: "",
  source_asset: "USD",
  target_asset: "USDP",
  amount: "",
  metadata: [],
  identity_id: "",
  account_id: "",
  recipient_profile_id: "",
}

export type ConversionBody = ConversionCreate & { ref_id: string }

/** The request body for the form's values under this submission's ref_id; throws if the body would be refused. */
export function toConversionBody(values: ConversionFormValues, refId: string): ConversionBody {
  const optional = (value: string) => (value.trim() === "" ? undefined : value.trim())
  const metadata = rowsToMetadata(values.metadata)
  const identityId = optional(values.identity_id)
  const accountId = optional(values.account_id)
  const recipientProfileId = optional(values.recipient_profile_id)
  const body = {
    profile_id: values.profile_id,
    amount: values.amount.trim(),
    source_asset: values.source_asset,
    target_asset: values.target_asset,
    ref_id: refId,
    ...(metadata === undefined ? {} : { metadata }),
    ...(identityId === undefined ? {} : { identity_id: identityId }),
    ...(accountId === undefined ? {} : { account_id: accountId }),
    ...(recipientProfileId === undefined ? {} : { recipient_profile_id: recipientProfileId }),
  }
  return { ...conversionCreateSchema.parse(body), ref_id: refId }
}

/**
 * The target to keep when the source changes: the current one if the pair is valid, the
 * only valid one if there is just one (a stablecoin goes to USD), otherwise none.
 */
export function narrowedTarget(source: string, target: string): ConversionAsset | "" {
  const options = conversionTargets(source)
  if (options.includes(target as ConversionAsset)) return target as ConversionAsset
  return options.length === 1 ? (options[0] ?? "") : ""
}

export interface Shortfall {
  needed: string
  available: string
  short: string
}

/** Needed vs available when the amount is more than the source balance; null when it fits or is not a number yet. */
export function shortfall(amount: string, available: string | undefined): Shortfall | null {
  const needed = tryDecimal(amount.trim())
  const have = available === undefined ? null : tryDecimal(available)
  if (needed === null || have === null || needed.lte(have)) return null
  return { needed: needed.toFixed(), available: have.toFixed(), short: needed.minus(have).toFixed() }
}

// Pages that need only this (the list, the look-up) import it from its own module, without
// the schemas this file brings.
export { fieldMessage } from "@/components/forms/field-message"

/** A 4xx that settles the submission (nothing was placed under its ref_id, or another record owns it). */
export function isDefiniteRefusal(status: number): boolean {
  return status >= 400 && status < 500 && status !== 429 && status !== 401
}
