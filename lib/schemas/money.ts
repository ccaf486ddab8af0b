import { z } from "zod"
import { CRYPTO_DECIMALS, FIAT_DECIMALS, decimalPlaces, isUnsignedDecimalString, toDecimal } from "@/lib/money"
import { requiredOr } from "@/lib/schemas/common"

const AMOUNT_TYPE_RULE = 'must be a decimal number written as text, like "12.34"'

/**
 * An amount exactly as the service takes it: a decimal string matching the service's
 * pattern `^[0-9]*\.?[0-9]+$` (digits, at most one dot, nothing around them), more than
 * zero, with at most `maxDecimals` digits after the dot. Request bodies use this, so
 * " 10.00 " is refused as the service refuses it, never silently altered. Messages say
 * the rule in plain words; the issue's path names the field.
 */
export function amountSchema(maxDecimals: number) {
  return z.string({ error: requiredOr(AMOUNT_TYPE_RULE) }).superRefine((value, ctx) => amountRule(value, maxDecimals, ctx))
}

/**
 * An amount as a person types it into a form field: spaces around it are ignored (the
 * output is trimmed), then the same rule as `amountSchema`. For form inputs only: the
 * body a form sends carries the trimmed value, which the request schemas check again.
 */
export function typedAmountSchema(maxDecimals: number) {
  return z
    .string({ error: requiredOr(AMOUNT_TYPE_RULE) })
    .trim()
    .superRefine((value, ctx) => amountRule(value, maxDecimals, ctx))
}

/** Form fields: a crypto amount (at most 8 decimals) as typed; request bodies use `amountSchema(CRYPTO_DECIMALS)`. */
export const cryptoAmountSchema = typedAmountSchema(CRYPTO_DECIMALS)
/** Form fields: a fiat amount (at most 2 decimals) as typed; request bodies use `amountSchema(FIAT_DECIMALS)`. */
export const fiatAmountSchema = typedAmountSchema(FIAT_DECIMALS)

function amountRule(value: string, maxDecimals: number, ctx: { addIssue(issue: { code: "custom"; message: string }): void }) {
  const message = amountProblem(value, maxDecimals)
  if (message !== null) ctx.addIssue({ code: "custom", message })
}

/** What is wrong with an amount as sent, in plain words; null when nothing is. */
function amountProblem(value: string, maxDecimals: number): string | null {
  const trimmed = value.trim()
  if (trimmed === "") return "is required"
  if (trimmed !== value && isUnsignedDecimalString(trimmed.replace(/^-/, ""))) {
    return "must be a number like 12.34, without spaces around it"
  }
  if (value.startsWith("-") && isUnsignedDecimalString(value.slice(1))) return "must be more than 0"
  if (!isUnsignedDecimalString(value)) return "must be a number like 12.34 (digits and at most one dot)"
  if (decimalPlaces(value) > maxDecimals) return `at most ${maxDecimals} decimals`
  if (toDecimal(value).lte(0)) return "must be more than 0"
  return null
}
