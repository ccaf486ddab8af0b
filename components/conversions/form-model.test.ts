import { describe, expect, it } from "vitest"
import { conversionCreateSchema } from "@/lib/schemas/conversion"
import {
  type ConversionFormValues,
  EMPTY_FORM,
  PAIR_RULE,
  checkedConversionBody,
  conversionFormFieldOf,
  conversionFormSchema,
  fieldMessage,
  narrowedTarget,
  shortfall,
  sourceShortfall,
} from "./form-model"

const REF = "5f0c7c1e-8a4e-4c59-9a3c-2b0d6f1e2a10"

/** The checked body, for values the form's rules accept. */
function toConversionBody(values: ConversionFormValues, refId: string) {
  const checked = checkedConversionBody(values, refId)
  if (!checked.ok) throw new Error(`refused: ${JSON.stringify(checked.fields)}`)
  return checked.body
}
const valid: ConversionFormValues = { ...EMPTY_FORM, profile_id: "p-1", amount: "12.50" }

function errorsOf(values: ConversionFormValues): Record<string, string> {
  const result = conversionFormSchema.safeParse(values)
  if (result.success) return {}
  return Object.fromEntries(result.error.issues.map((issue) => [issue.path.join("."), issue.message]))
}

describe("conversion form rules", () => {
  it("accepts a mint and a redemption with at most 2 decimals", () => {
    expect(errorsOf(valid)).toEqual({})
    expect(errorsOf({ ...valid, source_asset: "PYUSD", target_asset: "USD", amount: "7" })).toEqual({})
  })

  it("names the rule under the amount: decimals, zero, negatives, words, blank", () => {
    expect(errorsOf({ ...valid, amount: "1.234" })).toEqual({ amount: "at most 2 decimals" })
    expect(errorsOf({ ...valid, amount: "0" })).toEqual({ amount: "must be more than 0" })
    expect(errorsOf({ ...valid, amount: "-3" })).toEqual({ amount: "must be more than 0" })
    expect(errorsOf({ ...valid, amount: "ten" }).amount).toMatch(/must be a number/)
    expect(errorsOf({ ...valid, amount: "" })).toEqual({ amount: "is required" })
  })

  it("refuses stablecoin to stablecoin and same-asset pairs under the target", () => {
    expect(errorsOf({ ...valid, source_asset: "USDP", target_asset: "PYUSD" })).toEqual({ target_asset: PAIR_RULE })
    expect(errorsOf({ ...valid, source_asset: "USD", target_asset: "USD" })).toEqual({ target_asset: "must differ from the source asset" })
    expect(errorsOf({ ...valid, target_asset: "" })).toEqual({ target_asset: "choose the asset to convert to" })
  })

  it("checks optional ids only when filled in, and metadata rows per row", () => {
    expect(errorsOf({ ...valid, identity_id: "  " })).toEqual({})
    expect(errorsOf({ ...valid, account_id: "has space" })).toEqual({ account_id: "letters, digits and . _ : - only" })
    expect(errorsOf({ ...valid, metadata: [{ key: "", value: "x" }] })).toEqual({ "metadata.0.key": "keys must not be empty" })
  })
})

describe("the body sent", () => {
  it("passes the shared create schema, carries the ref_id and leaves blanks out", () => {
    const body = toConversionBody({ ...valid, amount: " 12.50 ", metadata: [{ key: "desk", value: "A" }, { key: "", value: "" }] }, REF)
    expect(body).toEqual({
      profile_id: "p-1",
      amount: "12.50",
      source_asset: "USD",
      target_asset: "USDP",
      ref_id: REF,
      metadata: { desk: "A" },
    })
    expect(conversionCreateSchema.safeParse(body).success).toBe(true)
  })

  it("includes the on-behalf-of ids when given", () => {
    const body = toConversionBody({ ...valid, identity_id: "id-1", account_id: "acc-1", recipient_profile_id: "p-2" }, REF)
    expect(body).toMatchObject({ identity_id: "id-1", account_id: "acc-1", recipient_profile_id: "p-2" })
  })

  it("never builds a body the API would refuse: it says which field and why, without throwing", () => {
    expect(checkedConversionBody({ ...valid, amount: "1.001" }, REF)).toEqual({ ok: false, fields: { amount: "at most 2 decimals" } })
    expect(checkedConversionBody({ ...valid, source_asset: "USDG", target_asset: "USDP" }, REF)).toEqual({
      ok: false,
      fields: { target_asset: PAIR_RULE },
    })
    const tooMany = Array.from({ length: 7 }, (_, i) => ({ key: `k${i}`, value: "v" }))
    const refused = checkedConversionBody({ ...valid, metadata: tooMany }, REF)
    expect(refused.ok).toBe(false)
    if (!refused.ok) expect(Object.keys(refused.fields).map(conversionFormFieldOf)).toEqual(["metadata"])
  })

  it("maps the body's fields onto the form's inputs", () => {
    expect(conversionFormFieldOf("amount")).toBe("amount")
    expect(conversionFormFieldOf("metadata.desk")).toBe("metadata")
    expect(conversionFormFieldOf("recipient_profile_id")).toBe("recipient_profile_id")
    expect(conversionFormFieldOf("ref_id")).toBeNull()
    expect(conversionFormFieldOf("body")).toBeNull()
  })
})

describe("narrowing the target by the source", () => {
  it("keeps a valid target, picks USD for a stablecoin, clears an invalid one for USD", () => {
    expect(narrowedTarget("USD", "PYUSD")).toBe("PYUSD")
    expect(narrowedTarget("USDP", "PYUSD")).toBe("USD")
    expect(narrowedTarget("USDG", "")).toBe("USD")
    expect(narrowedTarget("USD", "USD")).toBe("")
    expect(narrowedTarget("", "USD")).toBe("")
  })
})

describe("sourceShortfall", () => {
  const balances = [{ asset: "USD", available: "100.00" }]
  it("treats a profile with no row for the source asset as holding none of it, once balances have loaded", () => {
    expect(sourceShortfall("25.00", "USDG", balances)).toEqual({ needed: "25", available: "0", short: "25" })
    expect(sourceShortfall("25.00", "USD", balances)).toBeNull()
    expect(sourceShortfall("100.01", "USD", balances)).toEqual({ needed: "100.01", available: "100", short: "0.01" })
  })
  it("says nothing while the balances load or the amount is not a number yet", () => {
    expect(sourceShortfall("25.00", "USDG", undefined)).toBeNull()
    expect(sourceShortfall("", "USDG", balances)).toBeNull()
    expect(sourceShortfall("0", "USDG", balances)).toBeNull()
  })
})

describe("shortfall", () => {
  it("says needed vs available only when the amount is more than the balance", () => {
    expect(shortfall("100.00", "250.5")).toBeNull()
    expect(shortfall("250.5", "250.50")).toBeNull()
    expect(shortfall("300.10", "250.5")).toEqual({ needed: "300.1", available: "250.5", short: "49.6" })
    expect(shortfall("0.1", "0")).toEqual({ needed: "0.1", available: "0", short: "0.1" })
    expect(shortfall("abc", "10")).toBeNull()
    expect(shortfall("5", undefined)).toBeNull()
  })

  it("is exact for long amounts (no floating point)", () => {
    expect(shortfall("9007199254740993.01", "9007199254740993.00")?.short).toBe("0.01")
  })
})

describe("messages and outcomes", () => {
  it("puts the field's name in front of its rule", () => {
    expect(fieldMessage("Amount", "must be more than 0")).toBe("Amount must be more than 0")
    expect(fieldMessage("Amount", "at most 2 decimals")).toBe("Amount: at most 2 decimals")
    expect(fieldMessage("Amount", "is required")).toBe("Amount is required")
    expect(fieldMessage("Amount", undefined)).toBeUndefined()
  })
})
