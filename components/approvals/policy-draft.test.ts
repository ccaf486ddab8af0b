import { describe, expect, it } from "vitest"
import { DEFAULT_POLICY } from "@/lib/schemas/approvals"
import { draftOf, formPath, newStaffRow, newTierRow, policyFromDraft } from "./policy-draft"

describe("the policy form's draft", () => {
  it("round-trips the policy: a draft left alone is the same policy", () => {
    const policy = { ...DEFAULT_POLICY, staff_limits: { "ann@example.com": { per_order: { USD: "100.00" }, per_day: {} } } }
    expect(policyFromDraft(draftOf(policy), policy)).toEqual({ policy, errors: null })
  })

  it("keeps the size over which the amount is typed again (the form does not edit it), and its absence", () => {
    const custom = { ...DEFAULT_POLICY, retype_amount_over: { USD: "5000.00" } }
    expect(policyFromDraft(draftOf(custom), custom).policy?.retype_amount_over).toEqual({ USD: "5000.00" })
    const { retype_amount_over: _, ...without } = DEFAULT_POLICY
    expect(policyFromDraft(draftOf(without), without).policy).not.toHaveProperty("retype_amount_over")
  })

  it("approval tiers round-trip; a new tier starts as two approvers, trader or admin; a bad one is named by its row", () => {
    const tiers = [{ at_or_over: { USD: "50000.00" }, approvers: 2, roles: ["trader" as const, "admin" as const] }, { at_or_over: { USD: "250000.00", EUR: "225000.00" }, approvers: 3, roles: ["admin" as const] }]
    const policy = { ...DEFAULT_POLICY, approval_tiers: tiers }
    expect(policyFromDraft(draftOf(policy), policy)).toEqual({ policy, errors: null })
    // The passkey size round-trips too.
    const withStepUp = { ...DEFAULT_POLICY, step_up_over: { USD: "100000.00" } }
    expect(policyFromDraft(draftOf(withStepUp), withStepUp)).toEqual({ policy: withStepUp, errors: null })
    // No tiers stays no tiers: the field is not added.
    expect(policyFromDraft(draftOf(DEFAULT_POLICY), DEFAULT_POLICY).policy).not.toHaveProperty("approval_tiers")
    const draft = draftOf(DEFAULT_POLICY)
    draft.tiers = [{ ...newTierRow(), at_or_over: { USD: "20000.00", EUR: "", SGD: "" } }]
    expect(policyFromDraft(draft, DEFAULT_POLICY).policy?.approval_tiers).toEqual([{ at_or_over: { USD: "20000.00" }, approvers: 2, roles: ["trader", "admin"] }])
    draft.tiers = [{ ...newTierRow(), approvers: "0", roles: { trader: false, admin: false } }]
    expect(policyFromDraft(draft, DEFAULT_POLICY).errors).toEqual({
      "approval_tiers.0.at_or_over": "name where the tier starts in at least one currency",
      "approval_tiers.0.approvers": "must be at least 1",
      "approval_tiers.0.roles": "name at least one role that may approve",
    })
  })

  it("names each bad field and its rule, by the input's path", () => {
    const draft = draftOf(DEFAULT_POLICY)
    draft.thresholds.execution.USD = "10000.001"
    draft.roles.trader!.per_day.EUR = "-5"
    draft.request_ttl_minutes = "1.5"
    draft.price_tolerance_percent = "abc"
    draft.staff = [{ ...newStaffRow(), email: "not-an-email", per_order: { USD: "5.00", EUR: "", SGD: "" } }, { ...newStaffRow(), email: "" }]
    const result = policyFromDraft(draft, DEFAULT_POLICY)
    expect(result.policy).toBeNull()
    expect(Object.keys(result.errors ?? {}).sort()).toEqual([
      "approval_thresholds.execution.USD",
      "price_tolerance_percent",
      "request_ttl_minutes",
      "role_limits.trader.per_day.EUR",
      "staff.0.email",
      "staff.1.email",
    ])
    expect(result.errors?.["request_ttl_minutes"]).toBe("must be a whole number of minutes")
    expect(result.errors?.["staff.0.email"]).toBe("must be an email address")
    expect(result.errors?.["staff.1.email"]).toBe("is required (or remove the row)")
  })

  it("an emptied input removes that threshold or limit; the API's staff paths map onto rows", () => {
    const draft = draftOf(DEFAULT_POLICY)
    draft.thresholds.conversion.USD = ""
    draft.staff = [{ ...newStaffRow(), email: "Bob@Example.com", per_order: { USD: "", EUR: "", SGD: "" }, per_day: { USD: "10.00", EUR: "", SGD: "" } }]
    const result = policyFromDraft(draft, DEFAULT_POLICY)
    expect(result.policy?.approval_thresholds.conversion).toEqual({})
    expect(result.policy?.staff_limits).toEqual({ "bob@example.com": { per_order: {}, per_day: { USD: "10.00" } } })
    expect(formPath("staff_limits.bob@example.com.per_day.USD", draft)).toBe("staff.0.per_day.USD")
    expect(formPath("staff_limits.bob@example.com", draft)).toBe("staff.0.email")
    expect(formPath("request_ttl_minutes", draft)).toBe("request_ttl_minutes")
  })
})
