import { z } from "zod"
import { CRYPTO_DECIMALS, FIAT_DECIMALS, decimalPlaces, isUnsignedDecimalString, toDecimal } from "@/lib/money"
import { requiredOr } from "@/lib/schemas/common"

/**
 * An amount as the service takes it: a decimal string (digits, at most one dot), more
 * than zero, with at most `maxDecimals` digits after the dot. Messages say the rule in
 * plain words; the issue's path names the field.
 */
export function amountSchema(maxDecimals: number) {
  return z
    .string({ error: requiredOr("must be a decimal number written as text, like \"12.34\"") })
    .trim()
    .superRefine((value, ctx) => {
      if (value === "") {
        ctx.addIssue({ code: "custom", message: "is required" })
        return
      }
      if (value.startsWith("-") && isUnsignedDecimalString(value.slice(1))) {
        ctx.addIssue({ code: "custom", message: "must be more than 0" })
        return
      }
      if (!isUnsignedDecimalString(value)) {
        ctx.addIssue({ code: "custom", message: "must be a number like 12.34 (digits and at most one dot)" })
        return
      }
      if (decimalPlaces(value) > maxDecimals) {
        ctx.addIssue({ code: "custom", message: `at most ${maxDecimals} decimals` })
        return
      }
      if (toDecimal(value).lte(0)) {
        ctx.addIssue({ code: "custom", message: "must be more than 0" })
      }
    })
}

export const cryptoAmountSchema = amountSchema(CRYPTO_DECIMALS)
export const fiatAmountSchema = amountSchema(FIAT_DECIMALS)
