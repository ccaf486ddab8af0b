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
  .custom<Record<string, unknown>>(isPlainObject, { error: "must be an object of text keys and text values" })
  .superRefine((record, ctx) => {
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
      }
      if (typeof value !== "string") {
        ctx.addIssue({ code: "custom", path: [key], message: "values must be strings" })
      } else if (characterCount(value) > METADATA_MAX_LENGTH) {
        ctx.addIssue({ code: "custom", path: [key], message: `values are at most ${METADATA_MAX_LENGTH} characters` })
      }
    }
  })
  .transform((record) => Object.fromEntries(Object.entries(record)) as Record<string, string>)

export type Metadata = Record<string, string>
