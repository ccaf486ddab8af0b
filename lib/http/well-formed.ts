/**
 * What a JSON body may not hold, whatever the route: a string with a lone UTF-16
 * surrogate (it has no UTF-8 form, so Postgres refuses it) and a field named `__proto__`
 * (schemas drop that key without a word, so a limit saved under it would be silently
 * ignored). Either is a 400 naming the field before anything is stored or sent.
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

const LONE_SURROGATE_ALL = new RegExp(LONE_SURROGATE.source, "g")

export const LONE_SURROGATE_RULE = "must be valid Unicode text (it holds a lone surrogate, which has no UTF-8 form)"
export const RESERVED_NAME_RULE = "is not an allowed field name"

export function isWellFormed(text: string): boolean {
  return !LONE_SURROGATE.test(text)
}

export interface IllFormed {
  /** The field, as `metadata.k` or `items[2]`; `body` for the body itself. */
  field: string
  rule: string
}

/** The first field (depth first, in the body's order) that breaks one of the rules above, or null. */
export function illFormedField(value: unknown, at = ""): IllFormed | null {
  if (typeof value === "string") return isWellFormed(value) ? null : { field: at || "body", rule: LONE_SURROGATE_RULE }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = illFormedField(value[i], `${at}[${i}]`)
      if (found) return found
    }
    return null
  }
  if (value !== null && typeof value === "object") {
    // JSON.parse makes `__proto__` an own key, so Object.entries sees it.
    for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
      const name = at ? `${at}.${key}` : key
      if (!isWellFormed(key)) return { field: name.replace(LONE_SURROGATE_ALL, "\uFFFD"), rule: LONE_SURROGATE_RULE }
      if (key === "__proto__") return { field: name, rule: RESERVED_NAME_RULE }
      const found = illFormedField(child, name)
      if (found) return found
    }
  }
  return null
}
