import { describe, expect, it } from "vitest"
import { DEFAULT_POLICY } from "@/lib/schemas/approvals"
import { policyDiff } from "@/lib/schemas/policy-diff"

describe("policyDiff", () => {
  it("names each changed, added and removed field with its value before and after", () => {
    const after = {
      ...DEFAULT_POLICY,
      price_tolerance_percent: "0.75",
      request_ttl_minutes: 60,
      role_limits: { ...DEFAULT_POLICY.role_limits, admin: undefined },
      staff_limits: { "ann@example.com": { per_order: { USD: "100.00" }, per_day: {} } },
    }
    const changes = policyDiff(DEFAULT_POLICY, after)
    expect(changes).toContainEqual({ field: "price_tolerance_percent", before: "0.5", after: "0.75" })
    expect(changes).toContainEqual({ field: "request_ttl_minutes", before: "240", after: "60" })
    expect(changes).toContainEqual({ field: "role_limits.admin.per_order.USD", before: "50000.00", after: null })
    expect(changes).toContainEqual({ field: "staff_limits.ann@example.com.per_order.USD", before: null, after: "100.00" })
    expect(changes.some((c) => c.field.startsWith("role_limits.trader"))).toBe(false)
  })

  it("names an approval tier's fields by the tier's position, its roles as one value", () => {
    const tier = { at_or_over: { USD: "50000.00" }, approvers: 2, roles: ["trader", "admin"] }
    const after = { ...DEFAULT_POLICY, approval_tiers: [tier] }
    expect(policyDiff(DEFAULT_POLICY, after)).toEqual([
      { field: "approval_tiers.0.approvers", before: null, after: "2" },
      { field: "approval_tiers.0.at_or_over.USD", before: null, after: "50000.00" },
      { field: "approval_tiers.0.roles", before: null, after: "trader, admin" },
    ])
    const stricter = { ...DEFAULT_POLICY, approval_tiers: [{ ...tier, roles: ["admin"] }] }
    expect(policyDiff(after, stricter)).toEqual([{ field: "approval_tiers.0.roles", before: "trader, admin", after: "admin" }])
  })

  it("finds nothing between a policy and itself", () => {
    expect(policyDiff(DEFAULT_POLICY, structuredClone(DEFAULT_POLICY))).toEqual([])
  })
})
