/**
 * What a policy change changes, field by field: the policy form's confirmation step and
 * the audit trail's policy entries both read it. Pure, so the browser may import it.
 */

export interface PolicyChange {
  /** A dotted path such as `role_limits.trader.per_order.USD`. */
  field: string
  /** The value before and after as text; null where the field was not set. */
  before: string | null
  after: string | null
}

function flatten(value: unknown, prefix: string, into: Map<string, string>): void {
  if (value && typeof value === "object" && !Array.isArray(value)) {
    for (const [key, inner] of Object.entries(value as Record<string, unknown>)) flatten(inner, prefix ? `${prefix}.${key}` : key, into)
    return
  }
  // A list of objects (approval tiers) by position: `approval_tiers.0.approvers`; a list of words (roles) as one value.
  if (Array.isArray(value) && value.some((item) => item && typeof item === "object")) {
    value.forEach((item, i) => flatten(item, prefix ? `${prefix}.${i}` : String(i), into))
    return
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return
    into.set(prefix, value.map(String).join(", "))
    return
  }
  if (value === undefined || value === null) return
  into.set(prefix, typeof value === "string" ? value : JSON.stringify(value))
}

/** Every field whose value differs between two policies (set, removed or changed), in path order. */
export function policyDiff(before: unknown, after: unknown): PolicyChange[] {
  const a = new Map<string, string>()
  const b = new Map<string, string>()
  flatten(before, "", a)
  flatten(after, "", b)
  const fields = [...new Set([...a.keys(), ...b.keys()])].sort()
  return fields.flatMap((field) => {
    const was = a.get(field) ?? null
    const now = b.get(field) ?? null
    return was === now ? [] : [{ field, before: was, after: now }]
  })
}
