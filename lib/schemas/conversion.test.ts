import { describe, expect, it } from "vitest"
import type { z } from "zod"
import {
  CONVERSION_ASSETS,
  CONVERSION_STATUSES,
  consoleConversionCreateSchema,
  conversionCreateSchema,
  conversionListQuerySchema,
  conversionTargets,
  isValidConversionPair,
} from "@/lib/schemas/conversion"

function issues(schema: z.ZodType, input: unknown): string[] {
  const result = schema.safeParse(input)
  return result.success ? [] : result.error.issues.map((issue) => `${issue.path.map(String).join(".")}: ${issue.message}`)
}

const PROFILE = "2c5c8d2e-9a4f-4a52-9d3e-1f2a3b4c5d6e"
const STABLE_TO_STABLE = "USD converts to USDP, PYUSD or USDG and back; stablecoin to stablecoin is not allowed"

function body(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { profile_id: PROFILE, amount: "100.00", source_asset: "USD", target_asset: "USDP", ...overrides }
}

describe("conversion pairs", () => {
  it("knows USD and the three stablecoins, and the statuses", () => {
    expect(CONVERSION_ASSETS).toEqual(["USD", "USDP", "PYUSD", "USDG"])
    expect(CONVERSION_STATUSES).toEqual(["CREATED", "SETTLED", "CANCELLED"])
  })

  it("allows USD to each stablecoin and back, nothing else", () => {
    const allowed: string[] = []
    for (const source of CONVERSION_ASSETS) {
      for (const target of CONVERSION_ASSETS) {
        if (isValidConversionPair(source, target)) allowed.push(`${source}→${target}`)
      }
    }
    expect(allowed).toEqual(["USD→USDP", "USD→PYUSD", "USD→USDG", "USDP→USD", "PYUSD→USD", "USDG→USD"])
    expect(isValidConversionPair("usd", "USDP")).toBe(false)
    expect(isValidConversionPair("USD", "USDC")).toBe(false)
    expect(isValidConversionPair("EUR", "USDP")).toBe(false)
  })

  it.each<[string, string[]]>([
    ["USD", ["USDP", "PYUSD", "USDG"]],
    ["USDP", ["USD"]],
    ["PYUSD", ["USD"]],
    ["USDG", ["USD"]],
    ["BTC", []],
    ["usd", []],
    ["", []],
  ])("conversionTargets(%j) = %j", (source, targets) => {
    expect(conversionTargets(source)).toEqual(targets)
  })
})

describe("conversionCreateSchema", () => {
  it.each([
    ["USD", "USDP"],
    ["USD", "PYUSD"],
    ["USD", "USDG"],
    ["USDP", "USD"],
    ["PYUSD", "USD"],
    ["USDG", "USD"],
  ])("accepts %s → %s", (source_asset, target_asset) => {
    expect(conversionCreateSchema.parse(body({ source_asset, target_asset }))).toEqual(body({ source_asset, target_asset }))
  })

  it.each([
    ["USDP", "PYUSD"],
    ["USDP", "USDG"],
    ["PYUSD", "USDP"],
    ["PYUSD", "USDG"],
    ["USDG", "USDP"],
    ["USDG", "PYUSD"],
  ])("refuses stablecoin to stablecoin %s → %s", (source_asset, target_asset) => {
    expect(issues(conversionCreateSchema, body({ source_asset, target_asset }))).toEqual([`target_asset: ${STABLE_TO_STABLE}`])
  })

  it.each(["USD", "USDP", "PYUSD", "USDG"])("refuses the same asset on both sides: %s", (asset) => {
    expect(issues(conversionCreateSchema, body({ source_asset: asset, target_asset: asset }))).toEqual([
      "target_asset: must differ from source_asset",
    ])
  })

  it("refuses assets outside the four", () => {
    expect(issues(conversionCreateSchema, body({ source_asset: "BTC" }))).toEqual([
      "source_asset: must be one of USD, USDP, PYUSD, USDG",
    ])
    expect(issues(conversionCreateSchema, body({ target_asset: "usdp" }))).toEqual([
      "target_asset: must be one of USD, USDP, PYUSD, USDG",
    ])
    expect(issues(conversionCreateSchema, body({ source_asset: "EUR", target_asset: "USDC" }))).toEqual([
      "source_asset: must be one of USD, USDP, PYUSD, USDG",
      "target_asset: must be one of USD, USDP, PYUSD, USDG",
    ])
  })

  it.each<[unknown, string]>([
    ["100.001", "amount: at most 2 decimals"],
    ["0.001", "amount: at most 2 decimals"],
    ["0", "amount: must be more than 0"],
    ["-5.00", "amount: must be more than 0"],
    ["1e3", "amount: must be a number like 12.34 (digits and at most one dot)"],
    ["5.", "amount: must be a number like 12.34 (digits and at most one dot)"],
    [100, 'amount: must be a decimal number written as text, like "12.34"'],
    ["", "amount: is required"],
  ])("checks amount %j", (amount, expected) => {
    expect(issues(conversionCreateSchema, body({ amount }))).toEqual([expected])
  })

  it("accepts 2-decimal, huge and leading-dot amounts; refuses padded ones, as the service's pattern does", () => {
    expect(conversionCreateSchema.parse(body({ amount: "99999999999.99" })).amount).toBe("99999999999.99")
    expect(conversionCreateSchema.parse(body({ amount: ".01" })).amount).toBe(".01")
    expect(issues(conversionCreateSchema, body({ amount: " 7.5 " }))).toEqual(["amount: must be a number like 12.34, without spaces around it"])
  })

  it("keeps any ref_id as sent; the console's body keeps its stricter rule", () => {
    expect(conversionCreateSchema.parse(body({ ref_id: " conv 1/ü " })).ref_id).toBe(" conv 1/ü ")
    expect(issues(consoleConversionCreateSchema, body({ ref_id: " conv 1/ü " }))).toEqual(["ref_id: letters, digits and . _ : - only"])
    expect(issues(consoleConversionCreateSchema, body({ ref_id: undefined }))).toEqual(["ref_id: is required"])
  })

  it("names every missing field", () => {
    expect(issues(conversionCreateSchema, {})).toEqual([
      "profile_id: is required",
      "amount: is required",
      "source_asset: is required",
      "target_asset: is required",
    ])
  })

  // zod skips an object's own rules once a field has a type error; the pair rule must still be reported.
  it("refuses a stablecoin-to-stablecoin pair when other fields are missing or wrong too", () => {
    expect(issues(conversionCreateSchema, { source_asset: "USDP", target_asset: "PYUSD" })).toEqual([
      "profile_id: is required",
      "amount: is required",
      `target_asset: ${STABLE_TO_STABLE}`,
    ])
    expect(issues(conversionCreateSchema, { profile_id: 7, amount: "1", source_asset: "USD", target_asset: "USD", metadata: null })).toEqual([
      "profile_id: must be text",
      "metadata: must be an object of text keys and text values",
      "target_asset: must differ from source_asset",
    ])
    // An unknown or missing asset has its own message; the pair is not judged then.
    expect(issues(conversionCreateSchema, { source_asset: "BTC", target_asset: "USDP" })).toEqual([
      "profile_id: is required",
      "amount: is required",
      "source_asset: must be one of USD, USDP, PYUSD, USDG",
    ])
  })

  it("refuses what is not an object with that one issue", () => {
    for (const input of [null, [], "conversion", 5]) {
      expect(conversionCreateSchema.safeParse(input).error?.issues.map((issue) => [issue.code, issue.path])).toEqual([["invalid_type", []]])
    }
  })

  it("accepts the optional fields and applies the metadata limits", () => {
    const full = body({
      ref_id: "conv-2026-01-31.001",
      metadata: { invoice: "INV-7" },
      identity_id: "00000000-0000-0000-0000-000000000000",
      account_id: "00000000-0000-0000-0000-000000000000",
      recipient_profile_id: "other-profile",
    })
    expect(conversionCreateSchema.parse(full)).toEqual(full)
    const seven = Object.fromEntries(Array.from({ length: 7 }, (_, i) => [`k${i}`, "v"]))
    expect(issues(conversionCreateSchema, body({ metadata: seven }))).toEqual(["metadata: at most 6 pairs (got 7)"])
    expect(issues(conversionCreateSchema, body({ metadata: { note: "x".repeat(101) } }))).toEqual([
      "metadata.note: values are at most 100 characters",
    ])
  })

  it("refuses unknown fields (strict)", () => {
    expect(conversionCreateSchema.safeParse(body({ source_amount: "1", destination_asset: "USDP" })).error?.issues).toEqual([
      expect.objectContaining({ code: "unrecognized_keys", path: [], keys: ["source_amount", "destination_asset"] }),
    ])
  })
})

describe("conversionListQuerySchema", () => {
  it("accepts every filter", () => {
    expect(
      conversionListQuerySchema.parse({
        profile_id: PROFILE,
        ref_id: "r-1",
        "created_at.begin": "2026-01-01T00:00:00Z",
        "created_at.end": "2026-01-02T00:00:00.5Z",
        "updated_at.begin": "2026-01-01T00:00:00-05:00",
        "updated_at.end": "2026-01-02T00:00:00.123456Z",
        order: "DESC",
        page_cursor: "next",
        limit: "1000",
      }),
    ).toEqual({
      profile_id: PROFILE,
      ref_id: "r-1",
      "created_at.begin": "2026-01-01T00:00:00Z",
      "created_at.end": "2026-01-02T00:00:00.5Z",
      "updated_at.begin": "2026-01-01T00:00:00-05:00",
      "updated_at.end": "2026-01-02T00:00:00.123456Z",
      order: "DESC",
      page_cursor: "next",
      limit: 1000,
    })
  })

  it.each<[string, unknown, string]>([
    ["ref_id", "", "ref_id: must not be empty"],
    ["ref_id", "r".repeat(256), "ref_id: at most 255 characters"],
    ["profile_id", "", "profile_id: is required"],
    ["updated_at.begin", "2026-01-01 00:00:00Z", "updated_at.begin: must be an RFC 3339 date-time"],
    ["updated_at.end", "1767225600", "updated_at.end: must be an RFC 3339 date-time"],
    ["limit", "0", "limit: at least 1"],
    ["limit", "1001", "limit: at most 1000"],
    ["limit", "ten", "limit: must be a whole number"],
    ["order", "ascending", "order: must be ASC or DESC"],
    ["page_cursor", "c".repeat(513), "page_cursor: at most 512 characters"],
  ])("%s %j → %j", (field, value, expected) => {
    expect(issues(conversionListQuerySchema, { [field]: value })).toEqual([expected])
  })

  it("takes any ref_id a record can carry, as it is (another client of the service may have chosen it)", () => {
    expect(conversionListQuerySchema.parse({ ref_id: " order 7/2026 · ü " })).toEqual({ ref_id: " order 7/2026 · ü " })
  })

  it("refuses unknown parameters", () => {
    expect(conversionListQuerySchema.safeParse({ status: "CREATED" }).error?.issues).toEqual([
      expect.objectContaining({ code: "unrecognized_keys", keys: ["status"] }),
    ])
  })
})
