import { describe, expect, it } from "vitest"
import type { z } from "zod"
import {
  METADATA_MAX_LENGTH,
  METADATA_MAX_PAIRS,
  type MetadataRow,
  characterCount,
  isFilledRow,
  metadataRowsSchema,
  metadataSchema,
  rowsToMetadata,
} from "@/lib/schemas/metadata"

function issues(schema: z.ZodType, input: unknown): string[] {
  const result = schema.safeParse(input)
  return result.success ? [] : result.error.issues.map((issue) => `${issue.path.map(String).join(".")}: ${issue.message}`)
}

function pairs(count: number): Record<string, string> {
  return Object.fromEntries(Array.from({ length: count }, (_, i) => [`key${i + 1}`, `value ${i + 1}`]))
}

describe("characterCount", () => {
  it("counts code points, so an emoji is one character", () => {
    expect(characterCount("")).toBe(0)
    expect(characterCount("abc")).toBe(3)
    expect(characterCount("😀")).toBe(1)
    expect("😀".length).toBe(2)
    expect(characterCount("é")).toBe(1)
    expect(characterCount("日本語")).toBe(3)
    // A joined emoji sequence is several code points; counting those is the stricter reading.
    expect(characterCount("👨‍👩‍👧")).toBe(5)
  })
})

describe("metadataSchema", () => {
  it("has the service's limits", () => {
    expect(METADATA_MAX_PAIRS).toBe(6)
    expect(METADATA_MAX_LENGTH).toBe(100)
  })

  it("accepts up to 6 string pairs, and returns a copy", () => {
    const input = pairs(6)
    const output = metadataSchema.parse(input)
    expect(output).toEqual(input)
    expect(output).not.toBe(input)
    expect(metadataSchema.parse({})).toEqual({})
    expect(metadataSchema.parse({ note: "" })).toEqual({ note: "" })
  })

  it("refuses 7 pairs", () => {
    expect(issues(metadataSchema, pairs(7))).toEqual([": at most 6 pairs (got 7)"])
  })

  it("accepts keys and values of exactly 100 characters, counting an emoji as one", () => {
    const hundred = "k".repeat(100)
    expect(metadataSchema.parse({ [hundred]: "v".repeat(100) })).toEqual({ [hundred]: "v".repeat(100) })
    const emoji = "😀".repeat(100)
    expect(emoji.length).toBe(200)
    expect(metadataSchema.parse({ [emoji]: emoji })).toEqual({ [emoji]: emoji })
    expect(metadataSchema.parse({ note: `${"a".repeat(99)}😀` })).toEqual({ note: `${"a".repeat(99)}😀` })
  })

  it("refuses 101-character keys and values, naming the key", () => {
    const key = "k".repeat(101)
    expect(issues(metadataSchema, { [key]: "v" })).toEqual([`${key}: keys are at most 100 characters`])
    expect(issues(metadataSchema, { note: "v".repeat(101) })).toEqual(["note: values are at most 100 characters"])
    expect(issues(metadataSchema, { note: "😀".repeat(101) })).toEqual(["note: values are at most 100 characters"])
    const emojiKey = "😀".repeat(101)
    expect(issues(metadataSchema, { [emojiKey]: "v" })).toEqual([`${emojiKey}: keys are at most 100 characters`])
  })

  it.each<[unknown]>([[5], [null], [true], [{ nested: "x" }], [["a"]], [undefined]])(
    "refuses the non-string value %j",
    (value) => {
      expect(issues(metadataSchema, { note: value })).toEqual(["note: values must be strings"])
    },
  )

  it("refuses empty and blank keys", () => {
    expect(issues(metadataSchema, { "": "x" })).toEqual([": keys must not be empty"])
    expect(metadataSchema.safeParse({ "": "x" }).error?.issues.map((issue) => issue.path)).toEqual([[""]])
    expect(issues(metadataSchema, { "  ": "x" })).toEqual(["  : keys must not be empty"])
  })

  it("refuses a __proto__ key instead of silently dropping it", () => {
    const input: unknown = JSON.parse('{"__proto__": "x", "note": "y"}')
    expect(issues(metadataSchema, input)).toEqual(["__proto__: __proto__ cannot be used as a key"])
    const polluting: unknown = JSON.parse('{"__proto__": {"admin": "true"}}')
    expect(issues(metadataSchema, polluting)).toEqual([
      "__proto__: __proto__ cannot be used as a key",
      "__proto__: values must be strings",
    ])
  })

  it("counts a __proto__ key among the pairs", () => {
    const input: unknown = JSON.parse(
      '{"a": "1", "b": "2", "c": "3", "d": "4", "e": "5", "f": "6", "__proto__": "7"}',
    )
    expect(issues(metadataSchema, input)).toEqual([
      ": at most 6 pairs (got 7)",
      "__proto__: __proto__ cannot be used as a key",
    ])
  })

  it("accepts an object without a prototype, as a plain one", () => {
    const bare = Object.assign(Object.create(null) as object, { desk: "fx" })
    expect(metadataSchema.parse(bare)).toEqual({ desk: "fx" })
  })

  it.each<[unknown]>([["text"], [5], [null], [["a", "b"]], [new Date(0)]])("refuses the non-object %j", (value) => {
    expect(issues(metadataSchema, value)).toEqual([": must be an object of text keys and text values"])
  })

  it("refuses a NUL character in a key or a value (no database column can hold one)", () => {
    expect(issues(metadataSchema, { "a\u0000b": "v", k: "x\u0000" })).toEqual([
      "a\u0000b: keys must not contain NUL characters",
      "k: values must not contain NUL characters",
    ])
  })

  it("reports every offending pair", () => {
    expect(issues(metadataSchema, { a: 1, "": "x", c: "c".repeat(101) })).toEqual([
      "a: values must be strings",
      ": keys must not be empty",
      "c: values are at most 100 characters",
    ])
  })
})

describe("the metadata editor's rows", () => {
  const rows = (count: number): MetadataRow[] => Array.from({ length: count }, (_, i) => ({ key: `key${i + 1}`, value: `value ${i + 1}` }))
  const blank: MetadataRow = { key: "", value: "" }

  it("accepts 6 filled rows and any number of blank ones; refuses a 7th filled row", () => {
    expect(issues(metadataRowsSchema, [...rows(6), blank, blank])).toEqual([])
    expect(issues(metadataRowsSchema, rows(7))).toEqual([": at most 6 pairs (got 7)"])
    expect(issues(metadataRowsSchema, [])).toEqual([])
  })

  it("a row with only a value, or only a key, counts as filled", () => {
    expect(isFilledRow(blank)).toBe(false)
    expect(isFilledRow({ key: "k", value: "" })).toBe(true)
    expect(isFilledRow({ key: "", value: "v" })).toBe(true)
    expect(issues(metadataRowsSchema, [...rows(6), { key: "", value: "v" }])).toEqual([
      ": at most 6 pairs (got 7)",
      "6.key: keys must not be empty",
    ])
  })

  it("accepts keys and values of exactly 100 characters and refuses 101, under the row's own input", () => {
    const at = { key: "k".repeat(100), value: "😀".repeat(100) }
    expect(issues(metadataRowsSchema, [at])).toEqual([])
    expect(issues(metadataRowsSchema, [blank, { key: "k".repeat(101), value: "v".repeat(101) }])).toEqual([
      "1.key: keys are at most 100 characters",
      "1.value: values are at most 100 characters",
    ])
    expect(issues(metadataRowsSchema, [{ key: "k", value: "😀".repeat(101) }])).toEqual(["0.value: values are at most 100 characters"])
  })

  it("refuses a blank key, a __proto__ key and a key given twice, each under its row", () => {
    expect(issues(metadataRowsSchema, [{ key: "  ", value: "v" }])).toEqual(["0.key: keys must not be empty"])
    expect(issues(metadataRowsSchema, [{ key: "__proto__", value: "v" }])).toEqual(["0.key: __proto__ cannot be used as a key"])
    expect(issues(metadataRowsSchema, [{ key: "desk", value: "a" }, blank, { key: "desk", value: "b" }])).toEqual(["2.key: each key only once"])
    // Blank rows are not keys: two of them are not a repeated key.
    expect(issues(metadataRowsSchema, [blank, blank, { key: "desk", value: "a" }])).toEqual([])
  })

  it("sends the filled rows as an object, and nothing when every row is blank", () => {
    expect(rowsToMetadata([blank, { key: "desk", value: "fx" }, { key: "note", value: "" }])).toEqual({ desk: "fx", note: "" })
    expect(rowsToMetadata([blank, blank])).toBeUndefined()
    expect(rowsToMetadata([])).toBeUndefined()
  })
})
