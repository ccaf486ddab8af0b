import { describe, expect, it } from "vitest"
import type { z } from "zod"
import {
  APPROVAL_STATES,
  DEFAULT_POLICY,
  POLICY_CURRENCIES,
  type Policy,
  approvalListQuerySchema,
  approveBodySchema,
  policySchema,
  rejectBodySchema,
  withdrawBodySchema,
} from "@/lib/schemas/approvals"

function issues(schema: z.ZodType, input: unknown): string[] {
  const result = schema.safeParse(input)
  return result.success ? [] : result.error.issues.map((issue) => `${issue.path.map(String).join(".")}: ${issue.message}`)
}

const policy = (change: Partial<Record<keyof Policy, unknown>>) => ({ ...DEFAULT_POLICY, ...change })

describe("policySchema", () => {
  it("accepts the defaults, and the currencies are the fiat ones", () => {
    expect(policySchema.parse(DEFAULT_POLICY)).toEqual(DEFAULT_POLICY)
    expect(POLICY_CURRENCIES).toEqual(["USD", "EUR", "SGD"])
    expect(DEFAULT_POLICY.approval_thresholds.execution.USD).toBe("10000.00")
    expect(DEFAULT_POLICY.role_limits.trader?.per_order.USD).toBe("50000.00")
  })

  it("a request waits 1 minute to 7 days, in whole minutes", () => {
    for (const ttl of [1, 10080]) expect(issues(policySchema, policy({ request_ttl_minutes: ttl }))).toEqual([])
    expect(issues(policySchema, policy({ request_ttl_minutes: 0 }))).toEqual(["request_ttl_minutes: must be at least 1"])
    expect(issues(policySchema, policy({ request_ttl_minutes: 10081 }))).toEqual(["request_ttl_minutes: must be at most 10080 (7 days)"])
    expect(issues(policySchema, policy({ request_ttl_minutes: 1.5 }))).toEqual(["request_ttl_minutes: must be a whole number of minutes"])
    expect(issues(policySchema, policy({ request_ttl_minutes: "60" }))).toEqual(["request_ttl_minutes: must be a whole number of minutes"])
  })

  it("the price tolerance is a percentage from 0 to 99.9999, as text", () => {
    for (const ok of ["0", "0.5", "99.9999", "10"]) expect(issues(policySchema, policy({ price_tolerance_percent: ok }))).toEqual([])
    const rule = "price_tolerance_percent: must be a percentage from 0 to 99.9999 with at most 4 decimals"
    for (const bad of ["100", "0.12345", "-1", ".5", "5.", " 5", "5 "]) expect(issues(policySchema, policy({ price_tolerance_percent: bad }))).toEqual([rule])
    expect(issues(policySchema, policy({ price_tolerance_percent: 0.5 }))).toEqual(['price_tolerance_percent: must be a decimal string like "0.5"'])
  })

  it("thresholds and limits are fiat amounts per known currency, at most 2 decimals", () => {
    const thresholds = (execution: unknown) => policy({ approval_thresholds: { execution, conversion: {} } })
    expect(issues(policySchema, thresholds({ USD: "0.01" }))).toEqual([])
    expect(issues(policySchema, thresholds({ USD: "1.001" }))).toEqual(["approval_thresholds.execution.USD: at most 2 decimals"])
    expect(issues(policySchema, thresholds({ USD: "0" }))).toEqual(["approval_thresholds.execution.USD: must be more than 0"])
    // (zod words an unknown key of a partial record its own way, not with the enum's message)
    expect(issues(policySchema, thresholds({ GBP: "1.00" }))).toEqual(['approval_thresholds.execution: Unrecognized key: "GBP"'])
    expect(issues(policySchema, policy({ role_limits: { intern: { per_order: {}, per_day: {} } } }))).toEqual(['role_limits: Unrecognized key: "intern"'])
    expect(issues(policySchema, policy({ role_limits: { trader: { per_order: {} } } }))).toHaveLength(1)
    expect(issues(policySchema, policy({ role_limits: { trader: { per_order: {}, per_day: {}, per_week: {} } } }))).toHaveLength(1)
  })

  it("staff limits are keyed by email address", () => {
    const limits = { per_order: { USD: "5.00" }, per_day: {} }
    expect(issues(policySchema, policy({ staff_limits: { "ann@example.com": limits } }))).toEqual([])
    expect(issues(policySchema, policy({ staff_limits: { ann: limits } })).map((i) => i.split(":")[0])).toEqual(["staff_limits.ann"])
    const long = `${"a".repeat(190)}@example.com`
    expect(issues(policySchema, policy({ staff_limits: { [long]: limits } }))).toHaveLength(1)
  })

  it("refuses unknown fields", () => {
    expect(issues(policySchema, policy({ extra: 1 } as Partial<Record<keyof Policy, unknown>>))).toHaveLength(1)
  })
})

describe("the approval bodies and list", () => {
  it("a rejection needs a reason; comments are trimmed, at most 500 characters", () => {
    expect(rejectBodySchema.parse({ reason: "  too large  " })).toEqual({ reason: "too large" })
    expect(issues(rejectBodySchema, { reason: "   " })).toEqual(["reason: give a reason for the rejection"])
    expect(issues(rejectBodySchema, {})).toHaveLength(1)
    expect(issues(rejectBodySchema, { reason: "r".repeat(500) })).toEqual([])
    expect(issues(rejectBodySchema, { reason: "r".repeat(501) })).toEqual(["reason: at most 500 characters"])
    expect(approveBodySchema.parse({ comment: " ok " })).toEqual({ comment: "ok" })
    expect(approveBodySchema.parse({})).toEqual({})
    expect(issues(approveBodySchema, { comment: 5 })).toEqual(["comment: must be text"])
    expect(issues(withdrawBodySchema, { comment: "c".repeat(501) })).toEqual(["comment: at most 500 characters"])
    expect(issues(withdrawBodySchema, { reason: "x" })).toHaveLength(1)
  })

  it("the list takes a state and a limit of 1 to 200, 50 by default", () => {
    expect(approvalListQuerySchema.parse({})).toEqual({ limit: 50 })
    expect(approvalListQuerySchema.parse({ state: "PENDING", limit: "200" })).toEqual({ state: "PENDING", limit: 200 })
    expect(issues(approvalListQuerySchema, { limit: "0" })).toEqual(["limit: must be at least 1"])
    expect(issues(approvalListQuerySchema, { limit: "201" })).toEqual(["limit: must be at most 200"])
    expect(issues(approvalListQuerySchema, { limit: "1.5" })).toEqual(["limit: must be a whole number"])
    expect(issues(approvalListQuerySchema, { state: "DONE" })).toEqual([`state: must be one of ${APPROVAL_STATES.join(", ")}`])
  })
})
