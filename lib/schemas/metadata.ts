import { z } from "zod"

export const METADATA_MAX_PAIRS = 6
export const METADATA_MAX_LENGTH = 100

/** Characters as a person counts them (code points), not UTF-16 units. */
export function characterCount(value: string): number {
  return [...value].length
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false
  const prototype: unknown = Object.getPrototypeOf(value)
  return prototype === Object.prototype || prototype === null
}

/**
 * Client metadata: string keys to string values, at most 6 pairs, keys and values at
 * most 100 characters each. An issue's path ends in the offending key. Every own key of
 * the input is checked (a JSON `"__proto__"` key is refused, not silently dropped), and
 * the output is a fresh object.
 */
export const metadataSchema = z
  // Not aborting: a body's other rules (e.g. "give base_amount or quote_amount") are still
  // checked and reported alongside, so the refinement below guards against non-objects.
  .custom<Record<string, unknown>>(isPlainObject, { error: "must be an object of text keys and text values", abort: false })
  .superRefine((record, ctx) => {
    if (!isPlainObject(record)) return
    const keys = Object.keys(record)
    if (keys.length > METADATA_MAX_PAIRS) {
      ctx.addIssue({ code: "custom", message: `at most ${METADATA_MAX_PAIRS} pairs (got ${keys.length})` })
    }
    for (const key of keys) {
      const value = record[key]
      if (key.trim() === "") {
        ctx.addIssue({ code: "custom", path: [key], message: "keys must not be empty" })
      } else if (key === "__proto__") {
        ctx.addIssue({ code: "custom", path: [key], message: "__proto__ cannot be used as a key" })
      } else if (characterCount(key) > METADATA_MAX_LENGTH) {
        ctx.addIssue({ code: "custom", path: [key], message: `keys are at most ${METADATA_MAX_LENGTH} characters` })
      } else if (key.includes("\u0000")) {
        ctx.addIssue({ code: "custom", path: [key], message: "keys must not contain NUL characters" })
      }
      if (typeof value !== "string") {
        ctx.addIssue({ code: "custom", path: [key], message: "values must be strings" })
      } else if (characterCount(value) > METADATA_MAX_LENGTH) {
        ctx.addIssue({ code: "custom", path: [key], message: `values are at most ${METADATA_MAX_LENGTH} characters` })
      } else if (value.includes("\u0000")) {
        // A JSON "\u0000" is valid text, but no database text or JSON column can hold it.
        ctx.addIssue({ code: "custom", path: [key], message: "values must not contain NUL characters" })
      }
    }
  })
  .transform((record) => Object.fromEntries(Object.entries(record)) as Record<string, string>)

export type Metadata = Record<string, string>

/** The metadata editor's rows, as a form holds them. */
export interface MetadataRow {
  key: string
  value: string
}

/** A row with anything in it: rows left entirely blank are ignored by the rules and never sent. */
export function isFilledRow(row: MetadataRow): boolean {
  return row.key !== "" || row.value !== ""
}

/**
 * The same limits as `metadataSchema`, said per row so a form can show each message under
 * its own input: at most 6 rows, keys and values at most 100 characters, keys present and
 * distinct. Rows left entirely blank are ignored.
 */
export const metadataRowsSchema = z
  .array(z.object({ key: z.string(), value: z.string() }))
  .superRefine((rows, ctx) => {
    const used = rows.filter(isFilledRow)
    if (used.length > METADATA_MAX_PAIRS) {
      ctx.addIssue({ code: "custom", message: `at most ${METADATA_MAX_PAIRS} pairs (got ${used.length})` })
    }
    const seen = new Set<string>()
    rows.forEach((row, index) => {
      if (!isFilledRow(row)) return
      if (row.key.trim() === "") ctx.addIssue({ code: "custom", path: [index, "key"], message: "keys must not be empty" })
      else if (row.key === "__proto__") ctx.addIssue({ code: "custom", path: [index, "key"], message: "__proto__ cannot be used as a key" })
      else if (characterCount(row.key) > METADATA_MAX_LENGTH) {
        ctx.addIssue({ code: "custom", path: [index, "key"], message: `keys are at most ${METADATA_MAX_LENGTH} characters` })
      } else if (seen.has(row.key)) ctx.addIssue({ code: "custom", path: [index, "key"], message: "each key only once" })
      seen.add(row.key)
      if (characterCount(row.value) > METADATA_MAX_LENGTH) {
        ctx.addIssue({ code: "custom", path: [index, "value"], message: `values are at most ${METADATA_MAX_LENGTH} characters` })
      }
    })
  })

/** Rows to the wire's object; undefined when there is nothing to send. */
export function rowsToMetadata(rows: readonly MetadataRow[]): Metadata | undefined {
  const used = rows.filter(isFilledRow)
  return used.length === 0 ? undefined : Object.fromEntries(used.map((row) => [row.key, row.value]))
}
