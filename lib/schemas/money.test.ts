import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { z } from "zod"
import { amountSchema, cryptoAmountSchema, fiatAmountSchema } from "@/lib/schemas/money"

/** Every issue as "path: message", in order. */
function issues(schema: z.ZodType, input: unknown): string[] {
  const result = schema.safeParse(input)
  return result.success ? [] : result.error.issues.map((issue) => `${issue.path.map(String).join(".")}: ${issue.message}`)
}

const PATTERN = ": must be a number like 12.34 (digits and at most one dot)"

describe("cryptoAmountSchema, a form field as typed (at most 8 decimals)", () => {
  it.each([
    ["1", "1"],
    ["0.00000001", "0.00000001"],
    ["99999999999.99999999", "99999999999.99999999"],
    [".5", ".5"],
    ["0012.5", "0012.5"],
    [" 1.5 ", "1.5"],
    ["\t2\n", "2"],
    ["1.50000000", "1.50000000"],
  ])("accepts %j as %j", (input, output) => {
    expect(cryptoAmountSchema.parse(input)).toBe(output)
  })

  it.each<[unknown, string]>([
    ["0.000000001", ": at most 8 decimals"],
    ["1.123456789", ": at most 8 decimals"],
    // Decimals are counted as written, as the service counts them: trailing zeros count.
    ["1.500000000", ": at most 8 decimals"],
    ["0", ": must be more than 0"],
    ["0.00000000", ": must be more than 0"],
    ["000", ": must be more than 0"],
    [".0", ": must be more than 0"],
    ["-1", ": must be more than 0"],
    ["-0.00000001", ": must be more than 0"],
    ["-0", ": must be more than 0"],
    ["", ": is required"],
    ["   ", ": is required"],
    ["abc", PATTERN],
    ["-abc", PATTERN],
    ["-", PATTERN],
    ["1e5", PATTERN],
    ["1E-8", PATTERN],
    ["5.", PATTERN],
    [".", PATTERN],
    ["1.2.3", PATTERN],
    ["+1", PATTERN],
    ["1,000", PATTERN],
    ["1 000", PATTERN],
    ["0x10", PATTERN],
    ["Infinity", PATTERN],
    ["NaN", PATTERN],
    ["١٢", PATTERN],
    [1.5, ': must be a decimal number written as text, like "12.34"'],
    [null, ': must be a decimal number written as text, like "12.34"'],
    [undefined, ": is required"],
  ])("rejects %j with %j", (input, expected) => {
    expect(issues(cryptoAmountSchema, input)).toEqual([expected])
  })

  it("accepts every positive amount with at most 8 decimals, unchanged (property)", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 10n ** 20n }), fc.integer({ min: 0, max: 8 }), (units, scale) => {
        const digits = units.toString().padStart(scale + 1, "0")
        const text = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`
        expect(cryptoAmountSchema.parse(text)).toBe(text)
      }),
    )
  })

  it("rejects every amount written with 9 or more decimals (property)", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 12n }), fc.stringMatching(/^[0-9]{9,20}$/), (whole, fraction) => {
        expect(issues(cryptoAmountSchema, `${whole}.${fraction}`)).toEqual([": at most 8 decimals"])
      }),
    )
  })
})

describe("fiatAmountSchema, a form field as typed (at most 2 decimals)", () => {
  it.each(["0.01", "1", "1.5", "1.50", "99999999999.99", ".99"])("accepts %j", (input) => {
    expect(fiatAmountSchema.parse(input)).toBe(input)
  })

  it.each<[string, string]>([
    ["1.005", ": at most 2 decimals"],
    ["0.001", ": at most 2 decimals"],
    ["1.500", ": at most 2 decimals"],
    ["0.00", ": must be more than 0"],
    ["-5", ": must be more than 0"],
    ["12,34", PATTERN],
  ])("rejects %j with %j", (input, expected) => {
    expect(issues(fiatAmountSchema, input)).toEqual([expected])
  })
})

describe("amountSchema", () => {
  it("takes the number of decimals", () => {
    expect(amountSchema(0).parse("12")).toBe("12")
    expect(issues(amountSchema(0), "12.5")).toEqual([": at most 0 decimals"])
    expect(amountSchema(18).parse("0.000000000000000001")).toBe("0.000000000000000001")
  })
})

describe("amountSchema: the service's pattern, on the value exactly as sent", () => {
  it.each([" 10.00 ", "10.00 ", " 10", "\t2", "2\n", " -1 "])("refuses %j (spaces around the number)", (input) => {
    expect(issues(amountSchema(2), input)).toEqual([": must be a number like 12.34, without spaces around it"])
  })

  it("a value with spaces around it that would still not be a number gets the plain rule, not the spaces' one", () => {
    // Only a leading minus is set aside before the pattern: a minus inside is no number, spaces or not.
    expect(issues(amountSchema(2), " 1-5 ")).toEqual([PATTERN])
    expect(issues(amountSchema(2), " 1.5- ")).toEqual([PATTERN])
  })

  it("gives the plain rule for everything else, like the typed form field's schema", () => {
    for (const input of ["", "   ", "1 000", "abc", "1.001", "0", "-5", 5, undefined]) {
      expect(issues(amountSchema(2), input)).toEqual(issues(fiatAmountSchema, input))
    }
  })

  it("accepts an amount unchanged", () => {
    expect(amountSchema(8).parse("0012.50000000")).toBe("0012.50000000")
  })
})
