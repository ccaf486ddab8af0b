/**
 * The first field (as `metadata.k`, `items[2]`) whose name or string value holds a lone
 * UTF-16 surrogate, or null. Such a string has no UTF-8 form: Postgres refuses it, so it
 * is a 400 naming the field before anything is stored or sent.
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

const LONE_SURROGATE_ALL = new RegExp(LONE_SURROGATE.source, "g")

export function isWellFormed(text: string): boolean {
  return !LONE_SURROGATE.test(text)
}

export function fieldWithLoneSurrogate(value: unknown, at = ""): string | null {
  if (typeof value === "string") return isWellFormed(value) ? null : at || "body"
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = fieldWithLoneSurrogate(value[i], `${at}[${i}]`)
      if (found) return found
    }
    return null
  }
  if (value !== null && typeof value === "object") {
    for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
      const name = at ? `${at}.${key}` : key
      if (!isWellFormed(key)) return at ? `${at}.${key.replace(LONE_SURROGATE_ALL, "\uFFFD")}` : key.replace(LONE_SURROGATE_ALL, "\uFFFD")
      const found = fieldWithLoneSurrogate(child, name)
      if (found) return found
    }
  }
  return null
}

export const LONE_SURROGATE_RULE = "must be valid Unicode text (it holds a lone surrogate, which has no UTF-8 form)"
