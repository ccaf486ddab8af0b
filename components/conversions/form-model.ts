import { z } from "zod"
import type { ConversionBody } from "@/lib/queries/conversions"
import { tryDecimal } from "@/lib/money"
import {
  CONVERSION_ASSETS,
  type ConversionAsset,
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

export type { ConversionBody }

/** The request body for the form's values under this submission's ref_id, as the form holds them (unchecked). */
function draftBody(values: ConversionFormValues, refId: string) {
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
  return body
}

/** Where a rule about one of the body's fields shows in the form. */
export type ConversionFormField = "profile_id" | "amount" | "source_asset" | "target_asset" | "metadata" | "identity_id" | "account_id" | "recipient_profile_id"

const FORM_FIELD_NAMES: readonly string[] = ["profile_id", "amount", "source_asset", "target_asset", "identity_id", "account_id", "recipient_profile_id"]

/** The form field a body field ("amount", "metadata.desk", …) belongs to; null for one the form has no input for. */
export function conversionFormFieldOf(field: string): ConversionFormField | null {
  if (field === "metadata" || field.startsWith("metadata.")) return "metadata"
  return FORM_FIELD_NAMES.includes(field) ? (field as ConversionFormField) : null
}

/**
 * The body for the form's values under this submission's ref_id, checked with the shared
 * create schema; or each field's rule, when the form's own rules let through something
 * the create schema refuses (the two are meant to agree; if they ever do not, the person
 * sees why under the field instead of nothing at all).
 */
export function checkedConversionBody(
  values: ConversionFormValues,
  refId: string,
): { ok: true; body: ConversionBody } | { ok: false; fields: Record<string, string> } {
  const parsed = conversionCreateSchema.safeParse(draftBody(values, refId))
  if (parsed.success) return { ok: true, body: { ...parsed.data, ref_id: refId } }
  const fields: Record<string, string> = {}
  for (const issue of parsed.error.issues) fields[issue.path.map(String).join(".") || "body"] ??= issue.message
  return { ok: false, fields }
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

/**
 * The shortfall of the source asset once the profile's balances have loaded: a profile
 * without a row for the asset has none of it ("0"). Null while they load.
 */
export function sourceShortfall(
  amount: string,
  source: string,
  balances: readonly { asset: string; available: string }[] | undefined,
): Shortfall | null {
  if (!balances || !source) return null
  return shortfall(amount, balances.find((b) => b.asset === source)?.available ?? "0")
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
