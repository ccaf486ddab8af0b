import { describe, expect, it } from "vitest"
import type { z } from "zod"
import {
  EXECUTION_SIDES,
  EXECUTION_STATUSES,
  consoleQuoteExecutionCreateSchema,
  quoteExecutionCreateSchema,
  quoteExecutionListQuerySchema,
} from "@/lib/schemas/quote-execution"

function issues(schema: z.ZodType, input: unknown): string[] {
  const result = schema.safeParse(input)
  return result.success ? [] : result.error.issues.map((issue) => `${issue.path.map(String).join(".")}: ${issue.message}`)
}

const PATTERN = "must be a number like 12.34 (digits and at most one dot)"
const QUOTE_ID = "5f0e8b1a-3a4b-4c6d-8e9f-0a1b2c3d4e5f"

describe("quoteExecutionCreateSchema", () => {
  it("accepts a body with base_amount or quote_amount", () => {
    expect(quoteExecutionCreateSchema.parse({ quote_id: QUOTE_ID, base_amount: "0.00000001" })).toEqual({
      quote_id: QUOTE_ID,
      base_amount: "0.00000001",
    })
    expect(quoteExecutionCreateSchema.parse({ quote_id: QUOTE_ID, quote_amount: "99999999999.99" })).toEqual({
      quote_id: QUOTE_ID,
      quote_amount: "99999999999.99",
    })
  })

  it("accepts every optional field", () => {
    const body = {
      quote_id: QUOTE_ID,
      ref_id: "0b6c1a52-8d0e-4f3b-9a57-0c7f7c7f0a11",
      base_amount: "1.5",
      metadata: { order: "42", desk: "treasury" },
      identity_id: "identity-1",
      account_id: "account.1",
      recipient_profile_id: "profile:2",
    }
    expect(quoteExecutionCreateSchema.parse(body)).toEqual(body)
  })

  it("refuses amounts with spaces around them, as the service's pattern does (never trims them)", () => {
    for (const [field, value] of [["base_amount", " 1.5 "], ["base_amount", "1.5\n"], ["quote_amount", " 10.00 "], ["quote_amount", "\t10"]]) {
      expect(issues(quoteExecutionCreateSchema, { quote_id: QUOTE_ID, [field!]: value })).toEqual([
        `${field}: must be a number like 12.34, without spaces around it`,
      ])
    }
  })

  it("the console's own API refuses a padded amount too (it never alters what the operator sent)", () => {
    expect(issues(consoleQuoteExecutionCreateSchema, { quote_id: QUOTE_ID, ref_id: "r-1", quote_amount: " 10.00 " })).toEqual([
      "quote_amount: must be a number like 12.34, without spaces around it",
    ])
  })

  it("still trims ids", () => {
    expect(quoteExecutionCreateSchema.parse({ quote_id: ` ${QUOTE_ID} `, base_amount: "1.5" })).toEqual({
      quote_id: QUOTE_ID,
      base_amount: "1.5",
    })
  })

  it("keeps any ref_id as sent, up to 255 characters; the console's body keeps its stricter rule", () => {
    for (const ref_id of [" spaced ref ", "a/b#c", "ünïcödé", "r".repeat(255)]) {
      expect(quoteExecutionCreateSchema.parse({ quote_id: QUOTE_ID, base_amount: "1", ref_id }).ref_id).toBe(ref_id)
      expect(issues(consoleQuoteExecutionCreateSchema, { quote_id: QUOTE_ID, base_amount: "1", ref_id })).toHaveLength(1)
    }
    expect(issues(quoteExecutionCreateSchema, { quote_id: QUOTE_ID, base_amount: "1", ref_id: "r".repeat(256) })).toEqual([
      "ref_id: at most 255 characters",
    ])
    expect(issues(quoteExecutionCreateSchema, { quote_id: QUOTE_ID, base_amount: "1", ref_id: "" })).toEqual(["ref_id: must not be empty"])
  })

  it("accepts .5 and refuses 5.", () => {
    expect(quoteExecutionCreateSchema.parse({ quote_id: QUOTE_ID, quote_amount: ".5" })).toEqual({
      quote_id: QUOTE_ID,
      quote_amount: ".5",
    })
    expect(issues(quoteExecutionCreateSchema, { quote_id: QUOTE_ID, quote_amount: "5." })).toEqual([
      `quote_amount: ${PATTERN}`,
    ])
  })

  it.each<[string, unknown, string]>([
    ["base_amount", "0.123456789", "base_amount: at most 8 decimals"],
    ["base_amount", "1.000000000", "base_amount: at most 8 decimals"],
    ["quote_amount", "10.001", "quote_amount: at most 2 decimals"],
    ["quote_amount", "0.005", "quote_amount: at most 2 decimals"],
    ["base_amount", "0", "base_amount: must be more than 0"],
    ["quote_amount", "0.00", "quote_amount: must be more than 0"],
    ["base_amount", "-1", "base_amount: must be more than 0"],
    ["quote_amount", "-0.01", "quote_amount: must be more than 0"],
    ["base_amount", "abc", `base_amount: ${PATTERN}`],
    ["base_amount", "1e5", `base_amount: ${PATTERN}`],
    ["quote_amount", "1e5", `quote_amount: ${PATTERN}`],
    ["quote_amount", "1,000.00", `quote_amount: ${PATTERN}`],
    ["base_amount", "", "base_amount: is required"],
    ["base_amount", 1.5, 'base_amount: must be a decimal number written as text, like "12.34"'],
    ["quote_amount", 100, 'quote_amount: must be a decimal number written as text, like "12.34"'],
    ["base_amount", null, 'base_amount: must be a decimal number written as text, like "12.34"'],
  ])("%s %j → %j", (field, value, expected) => {
    expect(issues(quoteExecutionCreateSchema, { quote_id: QUOTE_ID, [field]: value })).toEqual([expected])
  })

  it("needs exactly one of base_amount and quote_amount", () => {
    expect(issues(quoteExecutionCreateSchema, { quote_id: QUOTE_ID })).toEqual([
      "base_amount: give base_amount or quote_amount",
      "quote_amount: give base_amount or quote_amount",
    ])
    expect(issues(quoteExecutionCreateSchema, { quote_id: QUOTE_ID, base_amount: "1", quote_amount: "1" })).toEqual([
      "base_amount: give only one of base_amount and quote_amount",
      "quote_amount: give only one of base_amount and quote_amount",
    ])
    expect(
      issues(quoteExecutionCreateSchema, { quote_id: QUOTE_ID, base_amount: undefined, quote_amount: undefined }),
    ).toEqual(["base_amount: give base_amount or quote_amount", "quote_amount: give base_amount or quote_amount"])
  })

  // zod skips an object's own rules once a field has a type error; these must still be reported.
  it.each<[string, unknown, string[]]>([
    [
      "an empty body",
      {},
      ["quote_id: is required", "base_amount: give base_amount or quote_amount", "quote_amount: give base_amount or quote_amount"],
    ],
    [
      "a quote_id of the wrong type and both amounts",
      { quote_id: 5, base_amount: "1", quote_amount: "1" },
      [
        "quote_id: must be text",
        "base_amount: give only one of base_amount and quote_amount",
        "quote_amount: give only one of base_amount and quote_amount",
      ],
    ],
    [
      "null metadata and no amount",
      { quote_id: "q", metadata: null },
      [
        "metadata: must be an object of text keys and text values",
        "base_amount: give base_amount or quote_amount",
        "quote_amount: give base_amount or quote_amount",
      ],
    ],
    [
      "an amount of the wrong type beside the other amount",
      { quote_id: "q", base_amount: 1, quote_amount: "1" },
      [
        'base_amount: must be a decimal number written as text, like "12.34"',
        "base_amount: give only one of base_amount and quote_amount",
        "quote_amount: give only one of base_amount and quote_amount",
      ],
    ],
    [
      "metadata of the wrong type beside an unknown field",
      { quote_id: "q", base_amount: "1", metadata: [], side: "BUY" },
      ["metadata: must be an object of text keys and text values", ': Unrecognized key: "side"'],
    ],
  ])("reports the amount rule with the fields' own rules: %s", (_name, body, expected) => {
    expect(issues(quoteExecutionCreateSchema, body).sort()).toEqual([...expected].sort())
  })

  it("reports an invalid amount and a second amount together", () => {
    expect(issues(quoteExecutionCreateSchema, { quote_id: QUOTE_ID, base_amount: "1.123456789", quote_amount: "1" })).toEqual([
      "base_amount: at most 8 decimals",
      "base_amount: give only one of base_amount and quote_amount",
      "quote_amount: give only one of base_amount and quote_amount",
    ])
  })

  it("needs a quote_id", () => {
    expect(issues(quoteExecutionCreateSchema, { base_amount: "1" })).toEqual(["quote_id: is required"])
    expect(issues(quoteExecutionCreateSchema, { quote_id: "", base_amount: "1" })).toEqual(["quote_id: is required"])
    expect(issues(quoteExecutionCreateSchema, { quote_id: "   ", base_amount: "1" })).toEqual(["quote_id: is required"])
    expect(issues(quoteExecutionCreateSchema, { quote_id: 7, base_amount: "1" })).toEqual(["quote_id: must be text"])
    expect(issues(quoteExecutionCreateSchema, { quote_id: "a b", base_amount: "1" })).toEqual([
      "quote_id: letters, digits and . _ : - only",
    ])
  })

  it("applies the metadata limits under metadata", () => {
    const seven = Object.fromEntries(Array.from({ length: 7 }, (_, i) => [`k${i}`, "v"]))
    expect(issues(quoteExecutionCreateSchema, { quote_id: QUOTE_ID, base_amount: "1", metadata: seven })).toEqual([
      "metadata: at most 6 pairs (got 7)",
    ])
    const longKey = "k".repeat(101)
    expect(issues(quoteExecutionCreateSchema, { quote_id: QUOTE_ID, base_amount: "1", metadata: { [longKey]: "v" } })).toEqual([
      `metadata.${longKey}: keys are at most 100 characters`,
    ])
    expect(issues(quoteExecutionCreateSchema, { quote_id: QUOTE_ID, base_amount: "1", metadata: { n: 1 } })).toEqual([
      "metadata.n: values must be strings",
    ])
    expect(issues(quoteExecutionCreateSchema, { quote_id: QUOTE_ID, base_amount: "1", metadata: "x" })).toEqual([
      "metadata: must be an object of text keys and text values",
    ])
  })

  it("refuses unknown fields (strict), naming them", () => {
    const result = quoteExecutionCreateSchema.safeParse({ quote_id: QUOTE_ID, base_amount: "1", side: "BUY", price: "1" })
    expect(result.success).toBe(false)
    expect(result.error?.issues).toEqual([
      expect.objectContaining({ code: "unrecognized_keys", path: [], keys: ["side", "price"] }),
    ])
    expect(result.error?.issues[0]?.message).toBe('Unrecognized keys: "side", "price"')
  })

  it("refuses a JSON __proto__ field as unknown", () => {
    const result = quoteExecutionCreateSchema.safeParse(JSON.parse(`{"quote_id": "q", "base_amount": "1", "__proto__": {"x": 1}}`))
    expect(result.error?.issues).toEqual([expect.objectContaining({ code: "unrecognized_keys", keys: ["__proto__"] })])
  })

  it("refuses what is not an object, with that one issue (the object's rules do not run on it)", () => {
    for (const input of [null, [], "quote", 5, undefined]) {
      const result = quoteExecutionCreateSchema.safeParse(input)
      expect(result.error?.issues.map((issue) => [issue.code, issue.path])).toEqual([["invalid_type", []]])
    }
  })

  it.each([
    ["identity_id", "", "identity_id: is required"],
    ["account_id", "a/b", "account_id: letters, digits and . _ : - only"],
    ["recipient_profile_id", "p".repeat(129), "recipient_profile_id: at most 128 characters"],
  ])("checks %s %j", (field, value, expected) => {
    expect(issues(quoteExecutionCreateSchema, { quote_id: QUOTE_ID, base_amount: "1", [field]: value })).toEqual([expected])
  })
})

describe("the console's body: the reviewed quote", () => {
  const body = { quote_id: QUOTE_ID, ref_id: "r-1", quote_amount: "10.00" }
  const reviewed = { market: "BTCUSD", side: "BUY", price: "64250.15" }

  it("parses the quote as the maker reviewed it: its price becomes an approval request's limit price", () => {
    expect(consoleQuoteExecutionCreateSchema.parse({ ...body, reviewed_quote: reviewed })).toEqual({ ...body, reviewed_quote: reviewed })
    expect(consoleQuoteExecutionCreateSchema.parse({ ...body, reviewed_quote: { market: "ETHUSD", side: "SELL", price: ".5" } }).reviewed_quote).toEqual({
      market: "ETHUSD",
      side: "SELL",
      price: ".5",
    })
    // A whole-number price (no dot) is a price the service quotes too.
    expect(consoleQuoteExecutionCreateSchema.parse({ ...body, reviewed_quote: { ...reviewed, price: "64250" } }).reviewed_quote?.price).toBe("64250")
    expect(consoleQuoteExecutionCreateSchema.parse(body)).toEqual(body)
  })

  it("refuses a market, side or price the service would not have quoted, naming the field", () => {
    const bad = (change: Record<string, unknown>) => issues(consoleQuoteExecutionCreateSchema, { ...body, reviewed_quote: { ...reviewed, ...change } })
    expect(bad({ market: "btcusd" })).toEqual(["reviewed_quote.market: must be a market like BTCUSD"])
    expect(bad({ market: "BTC" })).toEqual(["reviewed_quote.market: must be a market like BTCUSD"])
    expect(bad({ market: "ABCDEFGHIJKLMNOPQ" })).toEqual(["reviewed_quote.market: must be a market like BTCUSD"])
    expect(bad({ market: "XBTCUSD" }).concat(bad({ market: "ABCDEFGHIJKLMNOP" }))).toEqual([])
    expect(bad({ market: 5 })).toEqual(["reviewed_quote.market: must be a market like BTCUSD"])
    expect(bad({ side: "buy" })).toEqual(["reviewed_quote.side: must be BUY or SELL"])
    expect(bad({ price: "5." })).toEqual(["reviewed_quote.price: must be a decimal string"])
    expect(bad({ price: "-5" })).toEqual(["reviewed_quote.price: must be a decimal string"])
    expect(bad({ price: "5 " })).toEqual(["reviewed_quote.price: must be a decimal string"])
    expect(bad({ price: " 5" })).toEqual(["reviewed_quote.price: must be a decimal string"])
    expect(bad({ price: 5 })).toEqual(["reviewed_quote.price: must be a decimal string"])
    expect(bad({ extra: true })).toEqual(['reviewed_quote: Unrecognized key: "extra"'])
  })
})

describe("quoteExecutionListQuerySchema", () => {
  it("has the service's sides and statuses", () => {
    expect(EXECUTION_SIDES).toEqual(["BUY", "SELL"])
    expect(EXECUTION_STATUSES).toEqual(["CREATED", "SETTLED"])
  })

  it("accepts every filter, as query strings", () => {
    expect(
      quoteExecutionListQuerySchema.parse({
        side: "SELL",
        market: "MATICUSD",
        status: "SETTLED",
        "created_at.begin": "2026-01-01T00:00:00Z",
        "created_at.end": "2026-01-31T23:59:59.999999999+08:00",
        limit: "50",
        order: "ASC",
        order_by: "CREATED_AT",
        page_cursor: "abc==",
      }),
    ).toEqual({
      side: "SELL",
      market: "MATICUSD",
      status: "SETTLED",
      "created_at.begin": "2026-01-01T00:00:00Z",
      "created_at.end": "2026-01-31T23:59:59.999999999+08:00",
      limit: 50,
      order: "ASC",
      order_by: "CREATED_AT",
      page_cursor: "abc==",
    })
    expect(quoteExecutionListQuerySchema.parse({})).toEqual({})
    expect(quoteExecutionListQuerySchema.parse({ limit: 1000 })).toEqual({ limit: 1000 })
  })

  it.each<[string, unknown, string]>([
    ["side", "buy", "side: must be BUY or SELL"],
    ["status", "CANCELLED", "status: must be CREATED or SETTLED"],
    ["market", "BTC-USD", "market: must be a market like BTCUSD"],
    ["market", "btcusd", "market: must be a market like BTCUSD"],
    // The whole value is the market: nothing before or after it, at most 16 characters.
    ["market", "-BTCUSD", "market: must be a market like BTCUSD"],
    ["market", "BTCUSD-", "market: must be a market like BTCUSD"],
    ["market", "ABCDEFGHIJKLMNOPQ", "market: must be a market like BTCUSD"],
    ["market", 5, "market: must be a market like BTCUSD"],
    ["created_at.begin", "2026-01-01", "created_at.begin: must be an RFC 3339 date-time"],
    ["created_at.end", "yesterday", "created_at.end: must be an RFC 3339 date-time"],
    ["created_at.end", "2026-01-01T00:00:00", "created_at.end: must be an RFC 3339 date-time"],
    ["limit", "0", "limit: at least 1"],
    ["limit", "1001", "limit: at most 1000"],
    ["limit", "2.5", "limit: must be a whole number"],
    ["limit", "many", "limit: must be a whole number"],
    ["order", "desc", "order: must be ASC or DESC"],
    ["order_by", "UPDATED_AT", "order_by: must be CREATED_AT"],
    ["page_cursor", "c".repeat(513), "page_cursor: at most 512 characters"],
  ])("%s %j → %j", (field, value, expected) => {
    expect(issues(quoteExecutionListQuerySchema, { [field]: value })).toEqual([expected])
  })

  it("refuses unknown parameters (there is no ref_id filter)", () => {
    expect(quoteExecutionListQuerySchema.safeParse({ ref_id: "r" }).error?.issues).toEqual([
      expect.objectContaining({ code: "unrecognized_keys", keys: ["ref_id"] }),
    ])
  })
})
