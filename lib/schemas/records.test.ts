import { describe, expect, it } from "vitest"
import type { z } from "zod"
import {
  balanceListSchema,
  balanceSchema,
  conversionPageSchema,
  conversionSchema,
  isTerminalStatus,
  profilePageSchema,
  profileSchema,
  quoteExecutionPageSchema,
  quoteExecutionSchema,
  quoteListSchema,
  quoteSchema,
} from "@/lib/schemas/records"

function issues(schema: z.ZodType, input: unknown): string[] {
  const result = schema.safeParse(input)
  return result.success ? [] : result.error.issues.map((issue) => `${issue.path.map(String).join(".")}: ${issue.message}`)
}

const DATE_TIME = "must be an RFC 3339 date-time like 2026-01-31T12:00:00Z"

const quote = {
  id: "9d2b0b7e-1111-4a4a-8b8b-222222222222",
  market: "BTCUSD",
  side: "BUY",
  price: "97123.45678901",
  base_asset: "BTC",
  quote_asset: "USD",
  created_at: "2026-01-31T12:00:00Z",
  expires_at: "2026-01-31T12:00:30Z",
}

const execution = {
  id: "0e0e0e0e-3333-4c4c-9d9d-444444444444",
  profile_id: "profile-1",
  quote_id: quote.id,
  ref_id: "ref-1",
  status: "SETTLED",
  market: "BTCUSD",
  side: "BUY",
  price: "97123.45678901",
  base_amount: "0.00102960",
  base_asset: "BTC",
  quote_amount: "100.00",
  quote_asset: "USD",
  created_at: "2026-01-31T12:00:01.123Z",
  settled_at: "2026-01-31T12:00:01.223456789Z",
  metadata: { order: "42" },
  identity_id: "00000000-0000-0000-0000-000000000000",
  account_id: "00000000-0000-0000-0000-000000000000",
  recipient_profile_id: "profile-2",
}

describe("timestamps", () => {
  it.each(Array.from({ length: 10 }, (_, digits) => digits))("accept %i fractional digits", (digits) => {
    const created_at = digits === 0 ? "2026-01-31T12:00:00Z" : `2026-01-31T12:00:00.${"123456789".slice(0, digits)}Z`
    expect(quoteSchema.parse({ ...quote, created_at }).created_at).toBe(created_at)
  })

  it.each(["2026-01-31T12:00:00+05:30", "2026-01-31T12:00:00.5-08:00", "2026-01-31T12:00:00+00:00"])(
    "accept the offset form %j",
    (created_at) => {
      expect(quoteSchema.parse({ ...quote, created_at }).created_at).toBe(created_at)
    },
  )

  it.each([
    "2026-01-31T12:00:00.1234567891Z",
    "2026-01-31T12:00:00",
    "2026-01-31 12:00:00Z",
    "2026-01-31",
    "2026-01-31T12:00Z",
    "2026-01-31T12:00:00.Z",
    "2026-01-31T12:00:00+0530",
    "1769860800",
    "",
  ])("refuse %j", (created_at) => {
    expect(issues(quoteSchema, { ...quote, created_at })).toEqual([`created_at: ${DATE_TIME}`])
  })

  it("refuse a JSON number or a missing time", () => {
    expect(issues(quoteSchema, { ...quote, created_at: 1769860800 })).toEqual([`created_at: ${DATE_TIME}`])
    expect(issues(quoteSchema, { ...quote, expires_at: undefined })).toEqual(["expires_at: is required"])
  })
})

describe("quoteSchema", () => {
  it("parses a quote and drops fields it does not know", () => {
    expect(quoteSchema.parse({ ...quote, venue: "x", internal: { a: 1 } })).toEqual(quote)
    expect(quoteListSchema.parse({ items: [quote, { ...quote, side: "SELL" }] })).toEqual({
      items: [quote, { ...quote, side: "SELL" }],
    })
  })

  it("keeps the price exactly as written", () => {
    const price = "0.000000000000000000123456789012345678901234567890"
    expect(quoteSchema.parse({ ...quote, price }).price).toBe(price)
  })

  it("refuses JSON-number and malformed prices", () => {
    expect(issues(quoteSchema, { ...quote, price: 97123.45 })).toEqual(["price: must be a decimal string, not a number"])
    expect(issues(quoteSchema, { ...quote, price: "9.7e4" })).toEqual(["price: must be a decimal string"])
    expect(issues(quoteSchema, { ...quote, price: "" })).toEqual(["price: must be a decimal string"])
    expect(issues(quoteSchema, { ...quote, price: undefined })).toEqual(["price: is required"])
  })

  it("checks side and market", () => {
    expect(issues(quoteSchema, { ...quote, side: "buy" })).toEqual(['side: Invalid option: expected one of "BUY"|"SELL"'])
    expect(issues(quoteSchema, { ...quote, market: "BTC/USD" })).toEqual(["market: must be a market like BTCUSD"])
    expect(quoteSchema.parse({ ...quote, market: "POLUSD" }).market).toBe("POLUSD")
  })
})

describe("quoteExecutionSchema", () => {
  it("parses a full record", () => {
    expect(quoteExecutionSchema.parse(execution)).toEqual(execution)
  })

  it("parses a minimal CREATED record and drops unknown fields", () => {
    const { ref_id: _r, settled_at: _s, metadata: _m, identity_id: _i, account_id: _a, recipient_profile_id: _p, ...minimal } =
      execution
    const created = { ...minimal, status: "CREATED" }
    expect(quoteExecutionSchema.parse({ ...created, fee: "0.01" })).toEqual(created)
  })

  it.each(["base_amount", "quote_amount", "price"])("refuses a JSON-number %s", (field) => {
    expect(issues(quoteExecutionSchema, { ...execution, [field]: 100 })).toEqual([`${field}: must be a decimal string, not a number`])
  })

  it("refuses unknown statuses and non-string metadata", () => {
    expect(issues(quoteExecutionSchema, { ...execution, status: "CANCELLED" })).toEqual([
      'status: Invalid option: expected one of "CREATED"|"SETTLED"',
    ])
    expect(issues(quoteExecutionSchema, { ...execution, metadata: { n: 1 } })).toEqual([
      "metadata.n: Invalid input: expected string, received number",
    ])
  })

  it("parses a page", () => {
    expect(quoteExecutionPageSchema.parse({ total_count: 1, items: [execution], next_page_cursor: "c" })).toEqual({
      total_count: 1,
      items: [execution],
      next_page_cursor: "c",
    })
    expect(quoteExecutionPageSchema.parse({ items: [] })).toEqual({ items: [] })
    expect(issues(quoteExecutionPageSchema, { total_count: "1", items: [] })).toEqual([
      "total_count: Invalid input: expected number, received string",
    ])
  })
})

describe("conversionSchema", () => {
  const conversion = {
    id: "c0c0c0c0-5555-4e4e-8f8f-666666666666",
    profile_id: "profile-1",
    amount: "100.00",
    source_asset: "USD",
    target_asset: "PYUSD",
    status: "CANCELLED",
    ref_id: "conv-1",
    identity_id: "00000000-0000-0000-0000-000000000000",
    account_id: "00000000-0000-0000-0000-000000000000",
    created_at: "2026-01-31T12:00:00Z",
    updated_at: "2026-01-31T12:05:00.000000001Z",
    cancelled_at: "2026-01-31T12:05:00.000000001Z",
    metadata: { invoice: "INV-7" },
    recipient_profile_id: "profile-2",
  }

  it("parses a full record and a minimal one", () => {
    expect(conversionSchema.parse(conversion)).toEqual(conversion)
    expect(conversionSchema.parse({ id: "c", status: "CREATED" })).toEqual({ id: "c", status: "CREATED" })
    expect(conversionPageSchema.parse({ items: [conversion] })).toEqual({ items: [conversion] })
  })

  it("needs an id and a status, and a string amount", () => {
    expect(issues(conversionSchema, { status: "CREATED" })).toEqual(["id: Invalid input: expected string, received undefined"])
    expect(issues(conversionSchema, { id: "c", status: "" })).toEqual(["status: Too small: expected string to have >=1 characters"])
    expect(issues(conversionSchema, { ...conversion, amount: 100 })).toEqual(["amount: must be a decimal string, not a number"])
    expect(issues(conversionSchema, { ...conversion, settled_at: "soon" })).toEqual([`settled_at: ${DATE_TIME}`])
  })
})

describe("profiles and balances", () => {
  it("parse", () => {
    const profile = { id: "p", nickname: "Treasury", type: "NORMAL", description: "main", account_id: "a" }
    expect(profileSchema.parse(profile)).toEqual(profile)
    expect(profilePageSchema.parse({ items: [profile], next_page_cursor: "n" })).toEqual({ items: [profile], next_page_cursor: "n" })
    const balance = { asset: "BTC", available: "0.00000001", trading: "-1.5" }
    expect(balanceSchema.parse(balance)).toEqual(balance)
    expect(balanceListSchema.parse({ items: [balance] })).toEqual({ items: [balance] })
  })

  it("refuse JSON-number balances", () => {
    expect(issues(balanceSchema, { asset: "USD", available: 10, trading: "0" })).toEqual([
      "available: must be a decimal string, not a number",
    ])
  })
})

describe("isTerminalStatus", () => {
  it.each([
    ["SETTLED", true],
    ["CANCELLED", true],
    ["CREATED", false],
    ["settled", false],
    ["", false],
  ])("%j → %s", (status, expected) => {
    expect(isTerminalStatus(status)).toBe(expected)
  })
})
