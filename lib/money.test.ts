import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  CRYPTO_DECIMALS,
  Decimal,
  FIAT_DECIMALS,
  type Side,
  decimalPlaces,
  executionAmounts,
  isUnsignedDecimalString,
  roundDown,
  roundUp,
  sameAmount,
  toDecimal,
  toFixedString,
  tryDecimal,
} from "@/lib/money"

/*
 * An independent oracle: exact decimal arithmetic on BigInt, sharing no code with lib/money.ts
 * (and no floats). A decimal is `units × 10^-scale`.
 */
interface Scaled {
  units: bigint
  scale: number
}

function scaled(text: string): Scaled {
  const match = /^([0-9]*)\.?([0-9]*)$/.exec(text)
  if (!match || text === "" || text === ".") throw new Error(`oracle: bad decimal ${text}`)
  const whole = match[1] ?? ""
  const fraction = text.includes(".") ? (match[2] ?? "") : ""
  const digits = text.includes(".") ? `${whole}${fraction}` : whole
  return { units: BigInt(digits === "" ? "0" : digits), scale: text.includes(".") ? fraction.length : 0 }
}

const TEN = 10n
function pow10(n: number): bigint {
  return TEN ** BigInt(n)
}

/** a / b for b > 0, a ≥ 0, rounded toward −∞ or +∞. */
function divide(a: bigint, b: bigint, mode: "down" | "up"): bigint {
  const q = a / b
  return mode === "up" && q * b !== a ? q + 1n : q
}

/** Renders units × 10^-places with exactly `places` decimals. */
function render(units: bigint, places: number): string {
  const digits = units.toString().padStart(places + 1, "0")
  return places === 0 ? digits : `${digits.slice(0, digits.length - places)}.${digits.slice(digits.length - places)}`
}

/** base × price rounded to `places` decimals, exactly. */
function oracleProduct(base: string, price: string, places: number, mode: "down" | "up"): string {
  const b = scaled(base)
  const p = scaled(price)
  const exactScale = b.scale + p.scale
  const product = b.units * p.units
  if (exactScale <= places) return render(product * pow10(places - exactScale), places)
  return render(divide(product, pow10(exactScale - places), mode), places)
}

/** quote ÷ price rounded to `places` decimals, exactly. */
function oracleQuotient(quote: string, price: string, places: number, mode: "down" | "up"): string {
  const q = scaled(quote)
  const p = scaled(price)
  // q.units·10^-q.scale / (p.units·10^-p.scale) · 10^places
  const numerator = q.units * pow10(p.scale + places)
  const denominator = p.units * pow10(q.scale)
  return render(divide(numerator, denominator, mode), places)
}

/** Compares a·b with c exactly (all decimal strings); returns sign of a·b − c. */
function compareProduct(a: string, b: string, c: string): -1 | 0 | 1 {
  const x = scaled(a)
  const y = scaled(b)
  const z = scaled(c)
  const leftScale = x.scale + y.scale
  const common = Math.max(leftScale, z.scale)
  const left = x.units * y.units * pow10(common - leftScale)
  const right = z.units * pow10(common - z.scale)
  return left === right ? 0 : left > right ? 1 : -1
}

/** a + sign·10^-places, for a string with exactly `places` decimals. */
function step(a: string, places: number, sign: 1 | -1): string {
  const x = scaled(a)
  expect(x.scale).toBe(places)
  return render(x.units + BigInt(sign), places)
}

/* Arbitraries: decimal strings as the wire carries them. */

/** A positive decimal string with at most `maxScale` decimals, written in several styles. */
function amountArb(maxScale: number, maxUnits: bigint = 10n ** 19n): fc.Arbitrary<string> {
  return fc
    .record({
      units: fc.bigInt({ min: 1n, max: maxUnits }),
      scale: fc.integer({ min: 0, max: maxScale }),
      style: fc.constantFrom("plain", "leadingDot", "leadingZeros"),
    })
    .map(({ units, scale, style }) => {
      const text = render(units, scale)
      if (style === "leadingDot" && text.startsWith("0.")) return text.slice(1)
      if (style === "leadingZeros") return `00${text}`
      return text
    })
}

const baseArb = amountArb(CRYPTO_DECIMALS)
const quoteArb = amountArb(FIAT_DECIMALS)
/** Prices from tiny to huge, with up to 20 decimals. */
const priceArb = amountArb(20, 10n ** 30n)
/** Prices with very many decimals: where a fixed working precision would round too early. */
const longPriceArb = fc
  .record({ whole: fc.bigInt({ min: 0n, max: 100_000n }), decimals: fc.integer({ min: 40, max: 90 }), tail: fc.bigInt({ min: 1n, max: 999n }) })
  .map(({ whole, decimals, tail }) => render(whole * pow10(decimals) + tail, decimals))
const sideArb = fc.constantFrom<Side>("BUY", "SELL")

/** FC_RUNS=20000 for a longer hunt. */
const RUNS = { numRuns: Number(process.env["FC_RUNS"] ?? 1000) }

describe("Decimal", () => {
  it("keeps full precision and never writes exponent notation", () => {
    expect(new Decimal("0.00000001").toString()).toBe("0.00000001")
    expect(new Decimal("1000000000000000000000").toString()).toBe("1000000000000000000000")
    const tiny = `0.${"0".repeat(80)}1`
    expect(new Decimal(tiny).toString()).toBe(tiny)
    const huge = `1${"0".repeat(80)}`
    expect(new Decimal(huge).toString()).toBe(huge)
    expect(new Decimal("0.1").plus("0.2").toString()).toBe("0.3")
    expect(new Decimal(`9${"9".repeat(70)}.${"9".repeat(30)}`).toString()).toBe(`9${"9".repeat(70)}.${"9".repeat(30)}`)
  })
})

describe("isUnsignedDecimalString", () => {
  it.each([
    ["12.34", true],
    ["0", true],
    [".5", true],
    ["0012", true],
    ["0.00000001", true],
    ["5.", false],
    ["", false],
    [".", false],
    ["-1", false],
    ["+1", false],
    ["1e5", false],
    ["1.2.3", false],
    [" 1.5", false],
    ["1,000", false],
    ["Infinity", false],
    ["NaN", false],
    ["0x10", false],
    ["١٢", false],
  ])("%j → %s", (value, expected) => {
    expect(isUnsignedDecimalString(value)).toBe(expected)
  })
})

describe("toDecimal", () => {
  it("parses decimal strings exactly", () => {
    expect(toDecimal("12.34").toString()).toBe("12.34")
    expect(toDecimal("-1.5").toString()).toBe("-1.5")
    expect(toDecimal(".5").toString()).toBe("0.5")
    expect(toDecimal("0.10000000000000000555").toString()).toBe("0.10000000000000000555")
    expect(toDecimal("9007199254740993").toString()).toBe("9007199254740993")
  })

  it.each(["", " 1", "1 ", "1e5", "1E5", "abc", "1.2.3", "5.", "Infinity", "NaN", "0x10", "+1", "--1", "1,5"])(
    "throws a TypeError on %j",
    (value) => {
      expect(() => toDecimal(value)).toThrow(TypeError)
      expect(() => toDecimal(value)).toThrow(`not a decimal string: ${JSON.stringify(value)}`)
    },
  )

  it("quotes at most 40 characters of a bad value", () => {
    expect(() => toDecimal(`x${"9".repeat(100)}`)).toThrow(`not a decimal string: ${JSON.stringify(`x${"9".repeat(39)}`)}`)
  })
})

describe("tryDecimal", () => {
  it("returns null for missing or half-typed values", () => {
    expect(tryDecimal(undefined)).toBeNull()
    expect(tryDecimal(null)).toBeNull()
    expect(tryDecimal("")).toBeNull()
    expect(tryDecimal("  ")).toBeNull()
    expect(tryDecimal("1.")).toBeNull()
    expect(tryDecimal("-")).toBeNull()
    expect(tryDecimal("1e5")).toBeNull()
  })

  it("trims and parses", () => {
    expect(tryDecimal(" 2.50 ")?.toString()).toBe("2.5")
    expect(tryDecimal("-.5")?.toString()).toBe("-0.5")
  })
})

describe("decimalPlaces", () => {
  it.each([
    ["1.50", 2],
    ["100", 0],
    [".5", 1],
    ["0.00000001", 8],
    ["1.000000000", 9],
    ["99999999999.99", 2],
    ["5.", 0],
    ["0", 0],
    ["-3.125", 3],
  ])("%j has %i", (value, expected) => {
    expect(decimalPlaces(value)).toBe(expected)
  })
})

describe("roundUp and roundDown", () => {
  it("round positive amounts away from and toward zero", () => {
    expect(roundUp(new Decimal("1.001"), 2).toFixed(2)).toBe("1.01")
    expect(roundDown(new Decimal("1.009"), 2).toFixed(2)).toBe("1.00")
    expect(roundUp(new Decimal("0.000000001"), 8).toFixed(8)).toBe("0.00000001")
    expect(roundDown(new Decimal("0.999999999"), 8).toFixed(8)).toBe("0.99999999")
  })

  it("leave exact values alone", () => {
    expect(roundUp(new Decimal("1.10"), 2).toFixed(2)).toBe("1.10")
    expect(roundDown(new Decimal("1.10"), 2).toFixed(2)).toBe("1.10")
    expect(roundUp(new Decimal("99999999999.99"), 2).toFixed(2)).toBe("99999999999.99")
    expect(roundDown(new Decimal("0.00000001"), 8).toFixed(8)).toBe("0.00000001")
  })

  it("round a value a hair past the boundary (no half-way rounding)", () => {
    const hair = `1.00${"0".repeat(60)}1`
    expect(roundUp(new Decimal(hair), 2).toFixed(2)).toBe("1.01")
    expect(roundDown(new Decimal(`1.00${"9".repeat(70)}`), 2).toFixed(2)).toBe("1.00")
  })
})

describe("toFixedString", () => {
  it("pads to exactly the given decimals, without exponents", () => {
    expect(toFixedString(new Decimal("1.5"), 8)).toBe("1.50000000")
    expect(toFixedString(new Decimal("0.00000001"), 8)).toBe("0.00000001")
    expect(toFixedString(new Decimal("1000000000000000000000"), 2)).toBe("1000000000000000000000.00")
    expect(toFixedString(new Decimal("0"), 2)).toBe("0.00")
    expect(toFixedString(new Decimal("-0"), 2)).toBe("0.00")
  })
})

describe("executionAmounts: the four rounding directions", () => {
  it("BUY by base: the fiat paid is rounded up to 2 decimals", () => {
    expect(executionAmounts({ side: "BUY", price: "30000.00", base_amount: "0.00000001" })).toEqual({
      base_amount: "0.00000001",
      quote_amount: "0.01",
    })
    expect(executionAmounts({ side: "BUY", price: "3", base_amount: "0.333" })).toEqual({
      base_amount: "0.33300000",
      quote_amount: "1.00",
    })
    expect(executionAmounts({ side: "BUY", price: "2.345", base_amount: "1" })).toEqual({
      base_amount: "1.00000000",
      quote_amount: "2.35",
    })
    expect(executionAmounts({ side: "BUY", price: "2.341", base_amount: "1" })).toEqual({
      base_amount: "1.00000000",
      quote_amount: "2.35",
    })
  })

  it("BUY by quote: the crypto received is rounded down to 8 decimals", () => {
    expect(executionAmounts({ side: "BUY", price: "3", quote_amount: "10" })).toEqual({
      base_amount: "3.33333333",
      quote_amount: "10.00",
    })
    expect(executionAmounts({ side: "BUY", price: "1.5", quote_amount: "1" })).toEqual({
      base_amount: "0.66666666",
      quote_amount: "1.00",
    })
    expect(executionAmounts({ side: "BUY", price: "100000000", quote_amount: "0.99" })).toEqual({
      base_amount: "0.00000000",
      quote_amount: "0.99",
    })
  })

  it("SELL by base: the fiat received is rounded down to 2 decimals", () => {
    expect(executionAmounts({ side: "SELL", price: "30000.00", base_amount: "0.00000001" })).toEqual({
      base_amount: "0.00000001",
      quote_amount: "0.00",
    })
    expect(executionAmounts({ side: "SELL", price: "2.349", base_amount: "1" })).toEqual({
      base_amount: "1.00000000",
      quote_amount: "2.34",
    })
  })

  it("SELL by quote: the crypto sold is rounded up to 8 decimals", () => {
    expect(executionAmounts({ side: "SELL", price: "3", quote_amount: "10" })).toEqual({
      base_amount: "3.33333334",
      quote_amount: "10.00",
    })
    expect(executionAmounts({ side: "SELL", price: "1.5", quote_amount: "1" })).toEqual({
      base_amount: "0.66666667",
      quote_amount: "1.00",
    })
    expect(executionAmounts({ side: "SELL", price: "100000000", quote_amount: "0.01" })).toEqual({
      base_amount: "0.00000001",
      quote_amount: "0.01",
    })
  })

  it.each<[Side, "base_amount" | "quote_amount", string, string, string, string]>([
    // side, given, amount, price, base_amount, quote_amount: exact, nothing to round
    ["BUY", "base_amount", "2", "1.25", "2.00000000", "2.50"],
    ["SELL", "base_amount", "2", "1.25", "2.00000000", "2.50"],
    ["BUY", "quote_amount", "10.00", "4", "2.50000000", "10.00"],
    ["SELL", "quote_amount", "10.00", "4", "2.50000000", "10.00"],
    ["BUY", "base_amount", "0.5", "0.02", "0.50000000", "0.01"],
    ["SELL", "base_amount", "0.5", "0.02", "0.50000000", "0.01"],
    ["BUY", "quote_amount", "0.01", "1000000", "0.00000001", "0.01"],
    ["SELL", "quote_amount", "0.01", "1000000", "0.00000001", "0.01"],
    ["BUY", "base_amount", "12345.678", "0.01", "12345.67800000", "123.46"],
    ["SELL", "base_amount", "12345.678", "0.01", "12345.67800000", "123.45"],
  ])("exact or near boundary: %s by %s %s at %s", (side, given, amount, price, base, quote) => {
    expect(executionAmounts({ side, price, [given]: amount })).toEqual({ base_amount: base, quote_amount: quote })
  })
})

describe("executionAmounts: cases floats get wrong", () => {
  it.each<[Side, "base_amount" | "quote_amount", string, string, string, string]>([
    // 0.1 × 0.2 is 0.020000000000000004 in binary floating point: a float ceil would charge 0.03.
    ["BUY", "base_amount", "0.1", "0.2", "0.10000000", "0.02"],
    // 0.29 × 100 is 28.999999999999996 in floats: a float floor would pay 28.99.
    ["SELL", "base_amount", "0.29", "100", "0.29000000", "29.00"],
    // 0.3 ÷ 0.1 is 2.9999999999999996 in floats: a float floor would give 2.99999999.
    ["BUY", "quote_amount", "0.30", "0.1", "3.00000000", "0.30"],
    // 0.7 ÷ 0.1 is 6.999999999999999 in floats; ceil would still be right, floor not.
    ["SELL", "quote_amount", "0.70", "0.1", "7.00000000", "0.70"],
    // 1.005 × 1 in floats is below 1.005; rounding up must still give 1.01.
    ["BUY", "base_amount", "1.005", "1", "1.00500000", "1.01"],
    ["SELL", "base_amount", "1.005", "1", "1.00500000", "1.00"],
    // 4.35 × 100 = 434.99999999999994 in floats.
    ["BUY", "base_amount", "4.35", "100", "4.35000000", "435.00"],
    // 0.1 + 0.2 style: 0.3 / 3 = 0.09999999999999999 in floats.
    ["BUY", "quote_amount", "0.30", "3", "0.10000000", "0.30"],
  ])("%s by %s %s at %s", (side, given, amount, price, base, quote) => {
    expect(executionAmounts({ side, price, [given]: amount })).toEqual({ base_amount: base, quote_amount: quote })
  })

  it("handles huge amounts without losing a digit", () => {
    expect(executionAmounts({ side: "BUY", price: "1", quote_amount: "99999999999.99" })).toEqual({
      base_amount: "99999999999.99000000",
      quote_amount: "99999999999.99",
    })
    // exact product: 9999998999999999.9990000001
    expect(executionAmounts({ side: "BUY", price: "99999.99", base_amount: "99999999999.99999999" })).toEqual({
      base_amount: "99999999999.99999999",
      quote_amount: "9999999000000000.00",
    })
    expect(executionAmounts({ side: "SELL", price: "99999.99", base_amount: "99999999999.99999999" })).toEqual({
      base_amount: "99999999999.99999999",
      quote_amount: "9999998999999999.99",
    })
    expect(executionAmounts({ side: "BUY", price: "0.00000001", quote_amount: "99999999999.99" })).toEqual({
      base_amount: "9999999999999000000.00000000",
      quote_amount: "99999999999.99",
    })
    expect(executionAmounts({ side: "BUY", price: "1", base_amount: "1000000000000000000000" })).toEqual({
      base_amount: "1000000000000000000000.00000000",
      quote_amount: "1000000000000000000000.00",
    })
  })

  it("handles prices with many decimals", () => {
    expect(executionAmounts({ side: "BUY", price: "0.123456789123456789", base_amount: "1" })).toEqual({
      base_amount: "1.00000000",
      quote_amount: "0.13",
    })
    expect(executionAmounts({ side: "SELL", price: "0.123456789123456789", base_amount: "1" })).toEqual({
      base_amount: "1.00000000",
      quote_amount: "0.12",
    })
    // 1000 ÷ 28123.456789012345 = 0.035557506586…
    expect(executionAmounts({ side: "BUY", price: "28123.456789012345", quote_amount: "1000.00" })).toEqual({
      base_amount: "0.03555750",
      quote_amount: "1000.00",
    })
    expect(executionAmounts({ side: "SELL", price: "28123.456789012345", quote_amount: "1000.00" })).toEqual({
      base_amount: "0.03555751",
      quote_amount: "1000.00",
    })
  })

  it("rounds correctly even when the price has more digits than any fixed working precision", () => {
    // price = 1 + 10^-68: 1 ÷ price is 0.99999999|99…(60 nines)…, which must round down to 0.99999999.
    const justAboveOne = `1.${"0".repeat(67)}1`
    expect(executionAmounts({ side: "BUY", price: justAboveOne, quote_amount: "1.00" })).toEqual({
      base_amount: "0.99999999",
      quote_amount: "1.00",
    })
    expect(executionAmounts({ side: "SELL", price: justAboveOne, quote_amount: "1.00" })).toEqual({
      base_amount: "1.00000000",
      quote_amount: "1.00",
    })
    // price = 0.01 + 10^-68: 1 × price is a hair above 0.01, so a buyer pays 0.02.
    const justAboveCent = `0.01${"0".repeat(64)}1`
    expect(executionAmounts({ side: "BUY", price: justAboveCent, base_amount: "1" })).toEqual({
      base_amount: "1.00000000",
      quote_amount: "0.02",
    })
    expect(executionAmounts({ side: "SELL", price: justAboveCent, base_amount: "1" })).toEqual({
      base_amount: "1.00000000",
      quote_amount: "0.01",
    })
    // price = 1 − 10^-70: 1 ÷ price is a hair above 1, so a seller gives 1.00000001.
    const justBelowOne = `0.${"9".repeat(70)}`
    expect(executionAmounts({ side: "SELL", price: justBelowOne, quote_amount: "1.00" })).toEqual({
      base_amount: "1.00000001",
      quote_amount: "1.00",
    })
    expect(executionAmounts({ side: "BUY", price: justBelowOne, quote_amount: "1.00" })).toEqual({
      base_amount: "1.00000000",
      quote_amount: "1.00",
    })
  })

  it("handles a price so small the quotient has more than 60 digits", () => {
    const tinyPrice = `0.${"0".repeat(59)}3`
    expect(executionAmounts({ side: "BUY", price: tinyPrice, quote_amount: "1.00" })).toEqual({
      base_amount: `${"3".repeat(60)}.33333333`,
      quote_amount: "1.00",
    })
    expect(executionAmounts({ side: "SELL", price: tinyPrice, quote_amount: "1.00" })).toEqual({
      base_amount: `${"3".repeat(60)}.33333334`,
      quote_amount: "1.00",
    })
  })
})

describe("executionAmounts: the given amount", () => {
  it("is returned as written, in canonical form", () => {
    expect(executionAmounts({ side: "BUY", price: "2", base_amount: ".5" }).base_amount).toBe("0.50000000")
    expect(executionAmounts({ side: "BUY", price: "2", base_amount: "000.5" }).base_amount).toBe("0.50000000")
    expect(executionAmounts({ side: "SELL", price: "2", quote_amount: "7" }).quote_amount).toBe("7.00")
    expect(executionAmounts({ side: "SELL", price: "2", quote_amount: "7.000" }).quote_amount).toBe("7.00")
    expect(executionAmounts({ side: "SELL", price: "2", base_amount: "1.123456780000" }).base_amount).toBe("1.12345678")
  })

  it("refuses an amount it could only return rounded", () => {
    expect(() => executionAmounts({ side: "BUY", price: "2", base_amount: "1.123456789" })).toThrow(
      new RangeError("base_amount has at most 8 decimals"),
    )
    expect(() => executionAmounts({ side: "BUY", price: "2", quote_amount: "1.005" })).toThrow(
      new RangeError("quote_amount has at most 2 decimals"),
    )
  })

  it("refuses zero and negative amounts and prices", () => {
    expect(() => executionAmounts({ side: "BUY", price: "2", base_amount: "0" })).toThrow(
      new RangeError("base_amount must be more than 0"),
    )
    expect(() => executionAmounts({ side: "SELL", price: "2", base_amount: "-1" })).toThrow(
      new RangeError("base_amount must be more than 0"),
    )
    expect(() => executionAmounts({ side: "BUY", price: "2", quote_amount: "0.00" })).toThrow(
      new RangeError("quote_amount must be more than 0"),
    )
    expect(() => executionAmounts({ side: "SELL", price: "2", quote_amount: "-0.01" })).toThrow(
      new RangeError("quote_amount must be more than 0"),
    )
    expect(() => executionAmounts({ side: "BUY", price: "0", base_amount: "1" })).toThrow(
      new RangeError("price must be more than 0"),
    )
    expect(() => executionAmounts({ side: "BUY", price: "-5", base_amount: "1" })).toThrow(
      new RangeError("price must be more than 0"),
    )
  })

  it("refuses non-decimal strings", () => {
    expect(() => executionAmounts({ side: "BUY", price: "1e3", base_amount: "1" })).toThrow(TypeError)
    expect(() => executionAmounts({ side: "BUY", price: "1000", base_amount: "1e-8" })).toThrow(TypeError)
    expect(() => executionAmounts({ side: "BUY", price: "1000", quote_amount: "NaN" })).toThrow(TypeError)
  })

  it("needs exactly one of base_amount and quote_amount", () => {
    expect(() => executionAmounts({ side: "BUY", price: "2" })).toThrow(
      new TypeError("one of base_amount or quote_amount is required"),
    )
    expect(() => executionAmounts({ side: "BUY", price: "2", base_amount: undefined, quote_amount: undefined })).toThrow(
      new TypeError("one of base_amount or quote_amount is required"),
    )
    expect(() => executionAmounts({ side: "BUY", price: "2", base_amount: "1", quote_amount: "2.00" })).toThrow(
      new TypeError("only one of base_amount and quote_amount may be given"),
    )
  })
})

describe("executionAmounts: properties", () => {
  it("matches exact integer arithmetic in all four cases", () => {
    fc.assert(
      fc.property(sideArb, fc.oneof(priceArb, longPriceArb), baseArb, quoteArb, (side, price, base, quote) => {
        const byBase = executionAmounts({ side, price, base_amount: base })
        expect(byBase).toEqual({
          base_amount: oracleProduct(base, "1", CRYPTO_DECIMALS, "down"),
          quote_amount: oracleProduct(base, price, FIAT_DECIMALS, side === "BUY" ? "up" : "down"),
        })
        const byQuote = executionAmounts({ side, price, quote_amount: quote })
        expect(byQuote).toEqual({
          base_amount: oracleQuotient(quote, price, CRYPTO_DECIMALS, side === "BUY" ? "down" : "up"),
          quote_amount: oracleProduct(quote, "1", FIAT_DECIMALS, "down"),
        })
      }),
      RUNS,
    )
  })

  it("BUY by quote: base × price never exceeds the quote, and one more satoshi would", () => {
    fc.assert(
      fc.property(fc.oneof(priceArb, longPriceArb), quoteArb, (price, quote) => {
        const { base_amount } = executionAmounts({ side: "BUY", price, quote_amount: quote })
        expect(compareProduct(base_amount, price, quote)).toBeLessThanOrEqual(0)
        expect(compareProduct(step(base_amount, CRYPTO_DECIMALS, 1), price, quote)).toBe(1)
      }),
      RUNS,
    )
  })

  it("SELL by quote: base × price covers the quote, and one satoshi less would not", () => {
    fc.assert(
      fc.property(fc.oneof(priceArb, longPriceArb), quoteArb, (price, quote) => {
        const { base_amount } = executionAmounts({ side: "SELL", price, quote_amount: quote })
        expect(compareProduct(base_amount, price, quote)).toBeGreaterThanOrEqual(0)
        expect(compareProduct(step(base_amount, CRYPTO_DECIMALS, -1), price, quote)).toBe(-1)
      }),
      RUNS,
    )
  })

  it("BUY by base: quote ≥ base × price and quote − base × price < 0.01", () => {
    fc.assert(
      fc.property(fc.oneof(priceArb, longPriceArb), baseArb, (price, base) => {
        const { quote_amount } = executionAmounts({ side: "BUY", price, base_amount: base })
        expect(compareProduct(base, price, quote_amount)).toBeLessThanOrEqual(0)
        expect(compareProduct(base, price, step(quote_amount, FIAT_DECIMALS, -1))).toBe(1)
      }),
      RUNS,
    )
  })

  it("SELL by base: quote ≤ base × price and base × price − quote < 0.01", () => {
    fc.assert(
      fc.property(fc.oneof(priceArb, longPriceArb), baseArb, (price, base) => {
        const { quote_amount } = executionAmounts({ side: "SELL", price, base_amount: base })
        expect(compareProduct(base, price, quote_amount)).toBeGreaterThanOrEqual(0)
        expect(compareProduct(base, price, step(quote_amount, FIAT_DECIMALS, 1))).toBe(-1)
      }),
      RUNS,
    )
  })

  it("always writes exactly 8 and 2 decimals, plain digits, no exponent", () => {
    const wire = /^(0|[1-9][0-9]*)\.[0-9]+$/
    fc.assert(
      fc.property(sideArb, fc.oneof(priceArb, longPriceArb), fc.oneof(baseArb, quoteArb), fc.boolean(), (side, price, amount, byBase) => {
        const input = byBase ? { side, price, base_amount: amount } : { side, price, quote_amount: render(scaled(amount).units, 2) }
        const { base_amount, quote_amount } = executionAmounts(input)
        expect(base_amount).toMatch(wire)
        expect(quote_amount).toMatch(wire)
        expect(decimalPlaces(base_amount)).toBe(8)
        expect(decimalPlaces(quote_amount)).toBe(2)
        expect(`${base_amount}${quote_amount}`).not.toMatch(/[eE+-]/)
      }),
      RUNS,
    )
  })

  it("never writes exponents for 1e-8-sized or 1e21-sized values", () => {
    const prices = fc.constantFrom(
      "0.00000001",
      "0.0000001",
      "1000000000000000000000",
      "100000000000000000000000000000",
      `0.${"0".repeat(30)}1`,
      `1${"0".repeat(40)}`,
    )
    const bases = fc.constantFrom("0.00000001", "0.0000001", "1000000000000000000000", `1${"0".repeat(40)}`)
    const quotes = fc.constantFrom("0.01", "0.1", "1000000000000000000000", `1${"0".repeat(40)}`)
    fc.assert(
      fc.property(sideArb, prices, bases, quotes, (side, price, base, quote) => {
        const byBase = executionAmounts({ side, price, base_amount: base })
        const byQuote = executionAmounts({ side, price, quote_amount: quote })
        for (const text of [byBase.base_amount, byBase.quote_amount, byQuote.base_amount, byQuote.quote_amount]) {
          expect(text).toMatch(/^[0-9]+\.[0-9]+$/)
        }
        expect(byBase.quote_amount).toBe(oracleProduct(base, price, FIAT_DECIMALS, side === "BUY" ? "up" : "down"))
        expect(byQuote.base_amount).toBe(oracleQuotient(quote, price, CRYPTO_DECIMALS, side === "BUY" ? "down" : "up"))
      }),
    )
    expect(executionAmounts({ side: "SELL", price: "0.00000001", quote_amount: "0.01" })).toEqual({
      base_amount: "1000000.00000000",
      quote_amount: "0.01",
    })
    expect(executionAmounts({ side: "BUY", price: "1000000000000000000000", base_amount: "0.00000001" })).toEqual({
      base_amount: "0.00000001",
      quote_amount: "10000000000000.00",
    })
    expect(executionAmounts({ side: "BUY", price: "1000000000000000000000", quote_amount: "0.01" })).toEqual({
      base_amount: "0.00000000",
      quote_amount: "0.01",
    })
  })
})

describe("sameAmount", () => {
  it.each<[string | undefined, string | undefined, boolean]>([
    ["1.5", "1.50000000", true],
    [".5", "0.5", true],
    ["000.50", "0.5", true],
    ["99999999999.99", "99999999999.990", true],
    ["0", "-0", true],
    [" 1.5 ", "1.5", true],
    ["1.5", "1.51", false],
    ["0.00000001", "0.00000002", false],
    // Equal as floats, different as amounts:
    ["0.1", "0.10000000000000000555", false],
    ["9007199254740993", "9007199254740992", false],
    ["99999999999.99", "99999999999.989999999", false],
    [undefined, undefined, true],
    ["1", undefined, false],
    [undefined, "1", false],
    ["abc", "abc", false],
    ["1e2", "100", false],
    ["", "", false],
  ])("%j vs %j → %s", (a, b, expected) => {
    expect(sameAmount(a, b)).toBe(expected)
    expect(sameAmount(b, a)).toBe(expected)
  })

  it("treats padding with zeros as the same amount", () => {
    fc.assert(
      fc.property(baseArb, fc.integer({ min: 0, max: 12 }), (amount, zeros) => {
        const padded = amount.includes(".") ? `${amount}${"0".repeat(zeros)}` : `${amount}.${"0".repeat(zeros + 1)}`
        expect(sameAmount(amount, padded)).toBe(true)
        expect(sameAmount(amount, `${padded}1`)).toBe(false)
      }),
    )
  })
})
