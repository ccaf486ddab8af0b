import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  BALANCE_SHARES,
  EMPTY_FORM,
  amountForShare,
  type ExecuteFormValues,
  checkedExecutionBody,
  estimateAmounts,
  executeFormSchema,
  labelledFieldMessage,
  paymentOf,
  toExecutionBody,
} from "@/components/trade/execute-model"
import { Decimal } from "@/lib/money"
import { quoteExecutionCreateSchema } from "@/lib/schemas/quote-execution"

const btc = { base_asset: "BTC", quote_asset: "USD" }
const buy = { ...btc, side: "BUY" as const, price: "97123.45" }
const sell = { ...btc, side: "SELL" as const, price: "97000.5" }
const QUOTE_ID = "9d2b0b7e-1111-4a4a-8b8b-222222222222"
const REF = "3d3c7baf-ffd2-4317-a759-e04665217655"

function form(values: Partial<ExecuteFormValues>): ExecuteFormValues {
  return { ...EMPTY_FORM, ...values }
}

function errors(values: ExecuteFormValues): Record<string, string> {
  const result = executeFormSchema(btc).safeParse(values)
  if (result.success) return {}
  return Object.fromEntries(result.error.issues.map((i) => [i.path.map(String).join("."), i.message]))
}

describe("executeFormSchema", () => {
  it("names the field and says the rule in plain words", () => {
    expect(errors(form({ amount: "" }))).toEqual({ amount: "Amount in BTC: is required" })
    expect(errors(form({ amount: "0.000000001" }))).toEqual({ amount: "Amount in BTC: at most 8 decimals" })
    expect(errors(form({ amount: "0" }))).toEqual({ amount: "Amount in BTC: must be more than 0" })
    expect(errors(form({ amount: "-1" }))).toEqual({ amount: "Amount in BTC: must be more than 0" })
    expect(errors(form({ amount: "1e5" }))).toEqual({ amount: "Amount in BTC: must be a number like 12.34 (digits and at most one dot)" })
    expect(errors(form({ mode: "fiat", amount: "10.001" }))).toEqual({ amount: "Amount in USD: at most 2 decimals" })
    expect(errors(form({ amount: "0.00000001" }))).toEqual({})
    expect(errors(form({ mode: "fiat", amount: "10.25" }))).toEqual({})
  })

  it("checks metadata rows and the on-behalf-of ids with the shared rules", () => {
    const seven = Array.from({ length: 7 }, (_, i) => ({ key: `k${i}`, value: "v" }))
    expect(errors(form({ amount: "1", metadata: seven }))).toEqual({ metadata: "at most 6 pairs (got 7)" })
    expect(errors(form({ amount: "1", metadata: [{ key: "k".repeat(101), value: "v" }] }))).toEqual({
      "metadata.0.key": "keys are at most 100 characters",
    })
    expect(errors(form({ amount: "1", identity_id: "has spaces" }))).toEqual({
      identity_id: "Identity id: letters, digits and . _ : - only",
    })
    expect(errors(form({ amount: "1", identity_id: "  ", account_id: "acc-1" }))).toEqual({})
  })
})

describe("labelledFieldMessage", () => {
  it("words the service's field names with the labels the form shows", () => {
    expect(labelledFieldMessage("quote_amount", "above the maximum 50000 USD per execution", btc)).toBe(
      "Amount in USD: above the maximum 50000 USD per execution",
    )
    expect(labelledFieldMessage("base_amount", "at most 8 decimals", btc)).toBe("Amount in BTC: at most 8 decimals")
    expect(labelledFieldMessage("base_amount", "must be more than 0", btc)).toBe("Amount in BTC must be more than 0")
    expect(labelledFieldMessage("recipient_profile_id", "is not a known profile", btc)).toBe("Recipient profile id is not a known profile")
    expect(labelledFieldMessage("metadata.desk", "values are at most 100 characters", btc)).toBe("Metadata “desk”: values are at most 100 characters")
    expect(labelledFieldMessage("metadata", "at most 6 pairs (got 7)", btc)).toBe("Metadata: at most 6 pairs (got 7)")
  })
})

describe("toExecutionBody", () => {
  it("sends exactly one amount, trims, leaves out empty metadata and ids", () => {
    expect(toExecutionBody(form({ amount: " 0.5 " }), QUOTE_ID, REF)).toEqual({ quote_id: QUOTE_ID, ref_id: REF, base_amount: "0.5" })
    expect(
      toExecutionBody(
        form({ mode: "fiat", amount: "100", metadata: [{ key: "desk", value: "a" }, { key: "", value: "" }], recipient_profile_id: " p-2 " }),
        QUOTE_ID,
        REF,
      ),
    ).toEqual({ quote_id: QUOTE_ID, ref_id: REF, quote_amount: "100", metadata: { desk: "a" }, recipient_profile_id: "p-2" })
  })

  it("any body a valid form makes passes the route's schema", () => {
    const amount = fc.oneof(
      fc.tuple(fc.bigInt({ min: 0n, max: 10n ** 12n }), fc.bigInt({ min: 1n, max: 99_999_999n })).map(([w, f]) => `${w}.${String(f).padStart(8, "0")}`),
      fc.bigInt({ min: 1n, max: 10n ** 15n }).map(String),
    )
    fc.assert(
      fc.property(amount, fc.array(fc.record({ key: fc.string({ minLength: 1, maxLength: 100 }), value: fc.string({ maxLength: 100 }) }), { maxLength: 6 }), (a, rows) => {
        const values = form({ amount: a, metadata: rows })
        fc.pre(executeFormSchema(btc).safeParse(values).success)
        const checked = checkedExecutionBody(values, QUOTE_ID, REF)
        expect(checked.ok).toBe(true)
        if (checked.ok) expect(quoteExecutionCreateSchema.safeParse(checked.body).success).toBe(true)
      }),
    )
  })
})

describe("estimateAmounts", () => {
  it("uses the contract's rounding on both sides", () => {
    // BUY by base: quote rounded up; SELL by base: rounded down.
    expect(estimateAmounts(buy, "crypto", "0.00000001")).toEqual({ base_amount: "0.00000001", quote_amount: "0.01" })
    expect(estimateAmounts(sell, "crypto", "0.00000001")).toEqual({ base_amount: "0.00000001", quote_amount: "0.00" })
    // BUY by quote: base rounded down; SELL by quote: rounded up.
    expect(estimateAmounts(buy, "fiat", "100")).toEqual({ base_amount: "0.00102961", quote_amount: "100.00" })
    expect(estimateAmounts(sell, "fiat", "100")).toEqual({ base_amount: "0.00103093", quote_amount: "100.00" })
  })

  it("is null while the amount is not valid yet", () => {
    expect(estimateAmounts(buy, "crypto", "")).toBeNull()
    expect(estimateAmounts(buy, "crypto", "1.")).toBeNull()
    expect(estimateAmounts(buy, "crypto", "0.000000001")).toBeNull()
    expect(estimateAmounts(buy, "fiat", "1.234")).toBeNull()
  })
})

describe("paymentOf", () => {
  it("BUY pays the quote asset, SELL the base asset", () => {
    expect(paymentOf(buy, { base_amount: "1.00000000", quote_amount: "97123.45" })).toEqual({ asset: "USD", amount: "97123.45" })
    expect(paymentOf(sell, { base_amount: "1.00000000", quote_amount: "97000.50" })).toEqual({ asset: "BTC", amount: "1.00000000" })
  })
})

describe("amountForShare", () => {
  it("buys with a share of the fiat balance, rounded down to cents or satoshis", () => {
    expect(amountForShare(buy, "fiat", "1000.019", 100)).toBe("1000.01")
    expect(amountForShare(buy, "fiat", "1000", 25)).toBe("250.00")
    // 500 / 97123.45 = 0.005148... rounded down.
    expect(amountForShare(buy, "crypto", "1000", 50)).toBe("0.00514808")
  })

  it("sells a share of the crypto balance, rounded down", () => {
    expect(amountForShare(sell, "crypto", "0.123456789", 100)).toBe("0.12345678")
    expect(amountForShare(sell, "crypto", "1", 25)).toBe("0.25000000")
    // 0.5 BTC × 97000.5 = 48500.25
    expect(amountForShare(sell, "fiat", "1", 50)).toBe("48500.25")
  })

  it("is null when the share buys nothing", () => {
    expect(amountForShare(buy, "crypto", "0", 100)).toBeNull()
    expect(amountForShare(buy, "fiat", "0.003", 100)).toBeNull()
    expect(amountForShare(sell, "crypto", "0.000000009", 100)).toBeNull()
  })

  it("never needs more than the share once the service rounds the other side", () => {
    const decimal = (places: number) =>
      fc.tuple(fc.bigInt({ min: 1n, max: 10n ** 12n }), fc.constant(places)).map(([n, p]) => {
        const digits = n.toString().padStart(p + 1, "0")
        return `${digits.slice(0, -p)}.${digits.slice(-p)}`
      })
    fc.assert(
      fc.property(decimal(2), decimal(8), fc.constantFrom(...BALANCE_SHARES), fc.constantFrom("BUY" as const, "SELL" as const), fc.constantFrom("crypto" as const, "fiat" as const), (price, balance, percent, side, mode) => {
        const quote = { ...btc, side, price }
        const amount = amountForShare(quote, mode, balance, percent)
        if (amount === null) return
        const amounts = estimateAmounts(quote, mode, amount)
        if (!amounts) throw new Error(`not a valid amount: ${amount}`)
        const paid = paymentOf(quote, amounts).amount
        const share = new Decimal(balance).times(percent).div(100)
        expect(new Decimal(paid).lte(share)).toBe(true)
      }),
    )
  })
})
