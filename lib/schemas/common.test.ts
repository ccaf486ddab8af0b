import { describe, expect, it } from "vitest"
import type { z } from "zod"
import { RFC3339, SERVICE_REF_ID_MAX, dateTimeSchema, idSchema, refIdSchema, requiredOr, serviceRefIdSchema } from "@/lib/schemas/common"

function issues(schema: z.ZodType, input: unknown): string[] {
  const result = schema.safeParse(input)
  return result.success ? [] : result.error.issues.map((issue) => `${issue.path.map(String).join(".")}: ${issue.message}`)
}

describe("refIdSchema (the console's API)", () => {
  it("accepts UUIDs and short tokens, as sent", () => {
    expect(refIdSchema.parse("0b6c1a52-8d0e-4f3b-9a57-0c7f7c7f0a11")).toBe("0b6c1a52-8d0e-4f3b-9a57-0c7f7c7f0a11")
    expect(refIdSchema.parse("a.b_c:d-1")).toBe("a.b_c:d-1")
    expect(refIdSchema.parse("r".repeat(128))).toBe("r".repeat(128))
  })

  it.each<[unknown, string]>([
    ["", ": must not be empty"],
    // Never trimmed: a retry must send the very same ref_id.
    ["  ", ": letters, digits and . _ : - only"],
    [" a.b_c:d-1 ", ": letters, digits and . _ : - only"],
    ["r".repeat(129), ": at most 128 characters"],
    ["a b", ": letters, digits and . _ : - only"],
    ["ä", ": letters, digits and . _ : - only"],
    ["a/b", ": letters, digits and . _ : - only"],
    [42, ": must be text"],
    [undefined, ": is required"],
  ])("refuses %j", (value, expected) => {
    expect(issues(refIdSchema, value)).toEqual([expected])
  })
})

describe("serviceRefIdSchema (the sandbox, as the service)", () => {
  it.each(["abc", " padded ", "a/b#c?d", "order 42 — ünïcödé 日本", "😀", "\t", "r".repeat(SERVICE_REF_ID_MAX)])(
    "accepts %j exactly as sent",
    (value) => {
      expect(serviceRefIdSchema.parse(value)).toBe(value)
    },
  )

  it.each<[unknown, string]>([
    ["", ": must not be empty"],
    ["r".repeat(SERVICE_REF_ID_MAX + 1), ": at most 255 characters"],
    ["a\u0000b", ": must not contain NUL characters"],
    [42, ": must be text"],
    [null, ": must be text"],
  ])("refuses %j", (value, expected) => {
    expect(issues(serviceRefIdSchema, value)).toEqual([expected])
  })
})

describe("idSchema", () => {
  it.each<[unknown, string]>([
    ["", ": is required"],
    [" ", ": is required"],
    [undefined, ": is required"],
    [null, ": must be text"],
    ["x".repeat(129), ": at most 128 characters"],
    ["id with space", ": letters, digits and . _ : - only"],
  ])("refuses %j", (value, expected) => {
    expect(issues(idSchema, value)).toEqual([expected])
  })

  it("accepts and trims", () => {
    expect(idSchema.parse(" profile-1 ")).toBe("profile-1")
  })
})

describe("dateTimeSchema", () => {
  it("accepts RFC 3339 with 0 to 9 fractional digits, Z or an offset", () => {
    for (let digits = 0; digits <= 9; digits++) {
      const value = `2026-01-31T23:59:59${digits === 0 ? "" : `.${"9".repeat(digits)}`}Z`
      expect(dateTimeSchema.parse(value)).toBe(value)
      expect(RFC3339.test(value.replace("Z", "+14:00"))).toBe(true)
    }
  })

  it("refuses other shapes", () => {
    expect(issues(dateTimeSchema, "2026-01-31T23:59:59.1234567890Z")).toEqual([
      ": must be an RFC 3339 date-time like 2026-01-31T12:00:00Z",
    ])
    expect(issues(dateTimeSchema, "31/01/2026")).toEqual([": must be an RFC 3339 date-time like 2026-01-31T12:00:00Z"])
    expect(issues(dateTimeSchema, undefined)).toEqual([": is required"])
  })
})

describe("requiredOr", () => {
  it("says is required for a missing value, the rule otherwise", () => {
    expect(requiredOr("must be text")({ input: undefined })).toBe("is required")
    expect(requiredOr("must be text")({})).toBe("is required")
    expect(requiredOr("must be text")({ input: null })).toBe("must be text")
    expect(requiredOr("must be text")({ input: 0 })).toBe("must be text")
  })
})
