import { z } from "zod"
import { fieldMessage } from "@/components/forms/field-message"
import { CRYPTO_DECIMALS, type ExecutionAmounts, FIAT_DECIMALS, executionAmounts, roundDown, tryDecimal } from "@/lib/money"
import { idSchema } from "@/lib/schemas/common"
import { type MetadataRow, metadataRowsSchema, rowsToMetadata } from "@/lib/schemas/metadata"
import { cryptoAmountSchema, fiatAmountSchema } from "@/lib/schemas/money"
import type { ExecutionBody } from "@/lib/queries/executions"
import type { Payment } from "@/lib/pre-trade"
import { quoteExecutionCreateSchema } from "@/lib/schemas/quote-execution"
import type { Quote } from "@/lib/schemas/records"

/** Crypto: the operator types base_amount; fiat: quote_amount. Exactly one is sent. */
export type AmountMode = "crypto" | "fiat"

export interface ExecuteFormValues {
  mode: AmountMode
  amount: string
  metadata: MetadataRow[]
  identity_id: string
  account_id: string
  recipient_profile_id: string
}

export type { ExecutionBody }

export const EMPTY_FORM: ExecuteFormValues = {
  mode: "crypto",
  amount: "",
  metadata: [],
  identity_id: "",
  account_id: "",
  recipient_profile_id: "",
}

export function amountLabel(mode: AmountMode, quote: Pick<Quote, "base_asset" | "quote_asset">): string {
  return mode === "crypto" ? `Amount in ${quote.base_asset}` : `Amount in ${quote.quote_asset}`
}

const ON_BEHALF_LABELS = {
  identity_id: "Identity id",
  account_id: "Account id",
  recipient_profile_id: "Recipient profile id",
} as const

/**
 * A rule given for one of the service's fields (by the server's 400, or the create schema),
 * worded with the label the form shows for it: "Amount in USD: above the maximum …", not
 * "quote_amount: …".
 */
export function labelledFieldMessage(field: string, message: string, quote: Pick<Quote, "base_asset" | "quote_asset">): string {
  const metadataKey = field.startsWith("metadata.") ? field.slice("metadata.".length) : ""
  const label =
    field === "base_amount"
      ? amountLabel("crypto", quote)
      : field === "quote_amount"
        ? amountLabel("fiat", quote)
        : field === "identity_id" || field === "account_id" || field === "recipient_profile_id"
          ? ON_BEHALF_LABELS[field]
          : field === "metadata" || metadataKey
            ? `Metadata${metadataKey ? ` “${metadataKey}”` : ""}`
            : field
  return fieldMessage(label, message) ?? label
}

/**
 * The execute form's schema: the amount is checked with the shared crypto or fiat amount
 * schema (by mode), the metadata rows with the shared rows schema, the optional ids with
 * the shared id schema. Each message names the field it is about.
 */
export function executeFormSchema(quote: Pick<Quote, "base_asset" | "quote_asset">) {
  return z
    .object({
      mode: z.enum(["crypto", "fiat"]),
      amount: z.string(),
      metadata: metadataRowsSchema,
      identity_id: z.string(),
      account_id: z.string(),
      recipient_profile_id: z.string(),
    })
    .superRefine((values, ctx) => {
      const amount = (values.mode === "crypto" ? cryptoAmountSchema : fiatAmountSchema).safeParse(values.amount)
      if (!amount.success) {
        const message = amount.error.issues[0]?.message ?? "is not valid"
        ctx.addIssue({ code: "custom", path: ["amount"], message: `${amountLabel(values.mode, quote)}: ${message}` })
      }
      for (const name of ["identity_id", "account_id", "recipient_profile_id"] as const) {
        const value = values[name].trim()
        if (value === "") continue
        const id = idSchema.safeParse(value)
        if (!id.success) {
          ctx.addIssue({ code: "custom", path: [name], message: `${ON_BEHALF_LABELS[name]}: ${id.error.issues[0]?.message ?? "is not valid"}` })
        }
      }
    })
}

/** The request body of the form's values, in the service's field names. */
export function toExecutionBody(values: ExecuteFormValues, quoteId: string, refId: string): ExecutionBody {
  const body: ExecutionBody = { quote_id: quoteId, ref_id: refId }
  const amount = values.amount.trim()
  if (values.mode === "crypto") body.base_amount = amount
  else body.quote_amount = amount
  const metadata = rowsToMetadata(values.metadata)
  if (metadata) body.metadata = metadata
  for (const name of ["identity_id", "account_id", "recipient_profile_id"] as const) {
    const value = values[name].trim()
    if (value !== "") body[name] = value
  }
  return body
}

/** The body, checked with the very schema the route handler parses it with. */
export function checkedExecutionBody(
  values: ExecuteFormValues,
  quoteId: string,
  refId: string,
): { ok: true; body: ExecutionBody } | { ok: false; fields: Record<string, string> } {
  const body = toExecutionBody(values, quoteId, refId)
  const parsed = quoteExecutionCreateSchema.safeParse(body)
  if (parsed.success) return { ok: true, body }
  const fields: Record<string, string> = {}
  for (const issue of parsed.error.issues) fields[issue.path.map(String).join(".") || "body"] ??= issue.message
  return { ok: false, fields }
}

/**
 * Both amounts of the execution with the contract's rounding, as the service will compute
 * them; null while the typed amount is not a valid one.
 */
export function estimateAmounts(
  quote: Pick<Quote, "side" | "price">,
  mode: AmountMode,
  amount: string,
): ExecutionAmounts | null {
  const typed = amount.trim()
  const schema = mode === "crypto" ? cryptoAmountSchema : fiatAmountSchema
  if (!schema.safeParse(typed).success) return null
  try {
    return executionAmounts({
      side: quote.side,
      price: quote.price,
      ...(mode === "crypto" ? { base_amount: typed } : { quote_amount: typed }),
    })
  } catch {
    return null
  }
}

export type { Payment }

/** What the execution takes from the profile: BUY pays the quote asset, SELL pays the base asset. */
export function paymentOf(quote: Pick<Quote, "side" | "base_asset" | "quote_asset">, amounts: ExecutionAmounts): Payment {
  return quote.side === "BUY"
    ? { asset: quote.quote_asset, amount: amounts.quote_amount }
    : { asset: quote.base_asset, amount: amounts.base_amount }
}

/** The ticket's shortcuts: a share of the paying balance. */
export const BALANCE_SHARES = [25, 50, 100] as const
export type BalanceShare = (typeof BALANCE_SHARES)[number]

/**
 * The amount, in the form's mode, that spends `percent` % of the paying balance (BUY pays
 * the quote asset, SELL the base asset), rounded down to the amount's decimals (8 crypto,
 * 2 fiat) so that the other side, as the service rounds it, never needs more than that
 * share either. Null when the share buys nothing.
 */
export function amountForShare(
  quote: Pick<Quote, "side" | "price">,
  mode: AmountMode,
  available: string,
  percent: BalanceShare,
): string | null {
  const have = tryDecimal(available)
  const price = tryDecimal(quote.price)
  if (!have || !price || have.lte(0) || price.lte(0)) return null
  const budget = have.times(percent).div(100)
  let amount
  if (quote.side === "BUY") {
    // Paid in fiat: a whole number of cents. By base, base × price rounded up stays within them.
    const cents = roundDown(budget, FIAT_DECIMALS)
    amount = mode === "fiat" ? cents : roundDown(cents.div(price), CRYPTO_DECIMALS)
  } else {
    // Paid in crypto: whole satoshis. By quote, quote ÷ price rounded up stays within them.
    const sats = roundDown(budget, CRYPTO_DECIMALS)
    amount = mode === "crypto" ? sats : roundDown(sats.times(price), FIAT_DECIMALS)
  }
  return amount.gt(0) ? amount.toFixed(mode === "crypto" ? CRYPTO_DECIMALS : FIAT_DECIMALS) : null
}
