import { describe, expect, it } from "vitest"
import type { z } from "zod"
import {
  APPROVAL_STATES,
  type ApprovalRequest,
  DEFAULT_POLICY,
  POLICY_CURRENCIES,
  type Policy,
  type PolicyView,
  approvalListQuerySchema,
  approvalPageSchema,
  approvalRequestSchema,
  approveBodySchema,
  assertionSchema,
  bulkApproveBodySchema,
  type PolicyChangeView,
  policyChangeAnswerSchema,
  policyChangesPageSchema,
  policyPutBodySchema,
  policySchema,
  policyViewSchema,
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
  })

  it("the defaults a console uses until an admin saves a policy are the ones docs/api.md documents", () => {
    // Traders and admins both have limits in every currency: a fresh console places no unlimited order.
    const limits = {
      per_order: { USD: "50000.00", EUR: "45000.00", SGD: "65000.00" },
      per_day: { USD: "250000.00", EUR: "225000.00", SGD: "325000.00" },
    }
    expect(DEFAULT_POLICY).toEqual({
      approval_thresholds: { execution: { USD: "10000.00", EUR: "9000.00", SGD: "13000.00" }, conversion: { USD: "10000.00" } },
      retype_amount_over: { USD: "25000.00", EUR: "22500.00", SGD: "32500.00" },
      price_tolerance_percent: "0.5",
      request_ttl_minutes: 240,
      role_limits: { trader: limits, admin: limits },
      staff_limits: {},
    })
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
    expect(issues(policySchema, policy({ staff_limits: { ann: limits } }))).toEqual(["staff_limits.ann: must be an email address"])
    const long = `${"a".repeat(188)}@example.com` // 200 characters
    expect(issues(policySchema, policy({ staff_limits: { [long]: limits } }))).toEqual([])
    expect(issues(policySchema, policy({ staff_limits: { [`a${long}`]: limits } }))).toEqual([`staff_limits.a${long}: at most 200 characters`])
    const both = "a".repeat(201)
    expect(issues(policySchema, policy({ staff_limits: { [both]: limits } }))).toEqual([`staff_limits.${both}: must be an email address, at most 200 characters`])
    expect(issues(policySchema, policy({ staff_limits: [] }))).toHaveLength(1)
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
    expect(issues(approvalListQuerySchema, { limit: "many" })).toEqual(["limit: must be a whole number"])
    expect(issues(approvalListQuerySchema, { state: "DONE" })).toEqual([`state: must be one of ${APPROVAL_STATES.join(", ")}`])
  })
})

// The browser reads the console API's answers through these schemas (lib/queries/approvals.ts):
// a field the schema dropped or refused would be missing from the approvals and policy pages.
describe("the answers the approvals and policy pages read", () => {
  const request: ApprovalRequest = {
    id: "9b2f4c1e-0d7a-4f5e-8c3b-2a1d0e9f8c7b",
    kind: "execution",
    state: "APPROVED",
    placement: "PLACED",
    ref_id: "r-1",
    profile_id: "profile-1",
    request: { quote_id: "q-1", quote_amount: "20000.00" },
    size: { amount: "20000.00", currency: "USD" },
    market: "BTCUSD",
    side: "BUY",
    reviewed_price: "64250.15",
    limit_price: "64571.40",
    executed_price: "64260.00",
    maker: { email: "maker@example.com", role: "trader" },
    checker: { email: "checker@example.com", role: "admin" },
    created_at: "2026-03-01T10:00:00.000Z",
    expires_at: "2026-03-01T14:00:00.000Z",
    decided_at: "2026-03-01T10:05:00.000Z",
    approvals: {
      required: 2,
      roles: ["admin"],
      given: [
        { email: "first@example.com", role: "admin", at: "2026-03-01T10:03:00.000Z", credential_id: "cred-1", user_verified: true },
        { email: "checker@example.com", role: "admin", at: "2026-03-01T10:05:00.000Z", credential_id: null, user_verified: null },
      ],
    },
    policy_version: 3,
    comment: "fine",
    reason: null,
    record_id: "e-1",
    record_status: "SETTLED",
    problem: { title: "Price moved", detail: null },
  }

  it("a request keeps every field, whatever its kind, state and placement", () => {
    expect(approvalRequestSchema.parse(request)).toEqual(request)
    for (const kind of ["execution", "conversion"] as const) expect(approvalRequestSchema.parse({ ...request, kind }).kind).toBe(kind)
    for (const state of APPROVAL_STATES) expect(approvalRequestSchema.parse({ ...request, state }).state).toBe(state)
    for (const placement of ["NOT_SENT", "SENDING", "PLACED", "FAILED"] as const) {
      expect(approvalRequestSchema.parse({ ...request, placement }).placement).toBe(placement)
    }
    const pending = { ...request, state: "PENDING", placement: "NOT_SENT", checker: null, decided_at: null, problem: null }
    expect(approvalRequestSchema.parse(pending)).toEqual(pending)
    expect(approvalRequestSchema.safeParse({ ...request, kind: "transfer" }).success).toBe(false)
    expect(approvalRequestSchema.safeParse({ ...request, placement: "LOST" }).success).toBe(false)
  })

  it("a page of requests keeps its items and counts", () => {
    const page = { items: [request], pending_count: 3, pending_for_you: 2 }
    expect(approvalPageSchema.parse(page)).toEqual(page)
  })

  it("the policy view keeps the policy, who saved it and each staff member's usage today", () => {
    const view: PolicyView = {
      policy: DEFAULT_POLICY,
      version: 4,
      updated_at: "2026-03-01T11:00:00.000Z",
      updated_by: "admin@example.com",
      usage_today: [{ staff_email: "maker@example.com", currency: "USD", used_today: "30.01", per_day: "250000.00", per_order: null }],
      day: "2026-03-01",
    }
    expect(policyViewSchema.parse(view)).toEqual(view)
  })
})

describe("approval tiers", () => {
  const tier = (change: Record<string, unknown> = {}) => ({ at_or_over: { USD: "1000.00" }, approvers: 2, roles: ["admin"], ...change })
  const tiers = (...list: unknown[]) => issues(policySchema, policy({ approval_tiers: list }))

  it("a tier names where it starts, how many approve (1 to 5, whole) and which roles may", () => {
    const kept = [tier({ approvers: 1, roles: ["trader", "admin"] }), tier({ at_or_over: { USD: "5000.00", EUR: "4500.00" }, approvers: 5 })]
    expect(policySchema.parse(policy({ approval_tiers: kept })).approval_tiers).toEqual(kept)
    expect(tiers(tier({ at_or_over: {} }))).toEqual(["approval_tiers.0.at_or_over: name where the tier starts in at least one currency"])
    expect(tiers(tier({ approvers: 0 }))).toEqual(["approval_tiers.0.approvers: must be at least 1"])
    expect(tiers(tier({ approvers: 6 }))).toEqual(["approval_tiers.0.approvers: must be at most 5"])
    for (const bad of [1.5, "2"]) expect(tiers(tier({ approvers: bad }))).toEqual(["approval_tiers.0.approvers: must be a whole number of approvers"])
    expect(tiers(tier({ roles: [] }))).toEqual(["approval_tiers.0.roles: name at least one role that may approve"])
    expect(tiers(tier({ roles: ["viewer"] }))).toEqual(["approval_tiers.0.roles.0: must be one of trader, admin"])
    expect(tiers(tier({ roles: "admin" }))).toEqual(["approval_tiers.0.roles: must be a list of roles"])
    expect(tiers(tier({ roles: ["admin", "trader", "admin"] }))).toEqual(["approval_tiers.0.roles: must not repeat a role"])
  })

  it("at most 10 tiers, and within a currency no two start at the same amount (100 and 100.00 are one)", () => {
    const ten = Array.from({ length: 10 }, (_, i) => tier({ at_or_over: { USD: `${(i + 1) * 100}.00` } }))
    expect(tiers(...ten)).toEqual([])
    expect(tiers(...ten, tier({ at_or_over: { USD: "9999.00" } }))).toEqual(["approval_tiers: at most 10 tiers"])
    expect(issues(policySchema, policy({ approval_tiers: { USD: "1" } }))).toEqual(["approval_tiers: must be a list of tiers"])
    // The same amount in another currency is another tier; the second of one amount names the first.
    expect(tiers(tier({ at_or_over: { USD: "100" } }), tier({ at_or_over: { EUR: "100.00" } }), tier({ at_or_over: { EUR: "200.00", USD: "100.00" } }))).toEqual([
      "approval_tiers.2.at_or_over.USD: tier 1 starts at the same amount",
    ])
    expect(tiers(tier({ at_or_over: { USD: "50.00" } }), tier({ at_or_over: { SGD: "70.00" } }), tier({ at_or_over: { SGD: "70" } }))).toEqual([
      "approval_tiers.2.at_or_over.SGD: tier 2 starts at the same amount",
    ])
  })
})

describe("step-up bodies", () => {
  const assertion = {
    id: "cred-1",
    rawId: "cred-1",
    type: "public-key",
    response: { clientDataJSON: "e30", authenticatorData: "AAAA", signature: "MEUCIQ", userHandle: "dXNlcg" },
    clientExtensionResults: {},
  }
  const paths = (input: unknown) => issues(assertionSchema, input).map((issue) => issue.split(":")[0])

  it("a passkey assertion as the browser gives it is kept whole, with fields it does not name", () => {
    expect(assertionSchema.parse(assertion)).toEqual(assertion)
    const { userHandle: _, ...noHandle } = assertion.response
    expect(assertionSchema.parse({ ...assertion, response: noHandle }).response).toEqual(noHandle)
  })

  it("each part is bounded (ids and signature 1 KiB, client data and authenticator data 4 KiB), and none may be missing", () => {
    const long = (n: number) => "A".repeat(n)
    for (const [field, max] of [["id", 1024], ["rawId", 1024]] as const) {
      expect(paths({ ...assertion, [field]: long(max) })).toEqual([])
      expect(paths({ ...assertion, [field]: long(max + 1) })).toEqual([field])
    }
    for (const [field, max] of [["clientDataJSON", 4096], ["authenticatorData", 4096], ["signature", 1024], ["userHandle", 1024]] as const) {
      expect(paths({ ...assertion, response: { ...assertion.response, [field]: long(max) } })).toEqual([])
      expect(paths({ ...assertion, response: { ...assertion.response, [field]: long(max + 1) } })).toEqual([`response.${field}`])
    }
    expect(paths({ ...assertion, type: "password" })).toEqual(["type"])
    const { id: _id, ...noId } = assertion
    expect(paths(noId)).toEqual(["id"])
    const { signature: _sig, ...noSignature } = assertion.response
    expect(paths({ ...assertion, response: noSignature })).toEqual(["response.signature"])
  })

  it("a bulk approval names 1 to 20 distinct requests, with a comment and a passkey assertion", () => {
    const ids = Array.from({ length: 20 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`)
    const body = { ids, comment: "end of day", step_up: assertion }
    expect(bulkApproveBodySchema.parse(body)).toEqual(body)
    expect(issues(bulkApproveBodySchema, { ids: [] })).toEqual(["ids: name at least one request"])
    expect(issues(bulkApproveBodySchema, { ids: [...ids, "00000000-0000-4000-8000-000000000099"] })).toEqual(["ids: at most 20 requests at once"])
    expect(issues(bulkApproveBodySchema, { ids: [ids[0], ids[1], ids[0]] })).toEqual(["ids: must not repeat a request"])
    expect(issues(bulkApproveBodySchema, { ids: ["e-1"] })).toEqual(["ids.0: each must be a request id"])
  })

  it("a withdrawal takes a comment; a policy save takes the policy and a passkey assertion", () => {
    expect(withdrawBodySchema.parse({ comment: "  sent twice " })).toEqual({ comment: "sent twice" })
    expect(policyPutBodySchema.parse({ ...DEFAULT_POLICY, step_up: assertion })).toEqual({ ...DEFAULT_POLICY, step_up: assertion })
    expect(issues(policyPutBodySchema, { ...DEFAULT_POLICY, step_up: { ...assertion, type: "x" } })).toEqual(["step_up.type: Invalid input: expected \"public-key\""])
  })
})

describe("policy changes as the browser reads them", () => {
  const change: PolicyChangeView = {
    id: "c-1",
    state: "PENDING",
    policy: DEFAULT_POLICY,
    policy_digest: "d-1",
    base_version: 3,
    proposed_by: "admin@example.com",
    proposed_at: "2026-03-01T10:00:00.000Z",
    expires_at: "2026-03-02T10:00:00.000Z",
    comment: "raise limits",
    decided_by: null,
    decided_at: null,
    reason: null,
    applied_version: null,
    single_admin: false,
    credential_id: null,
    user_verified: null,
    digest: null,
  }

  it("a change, the page of changes and PUT /api/policy's 202 keep every field", () => {
    expect(policyChangeAnswerSchema.parse({ change })).toEqual({ change })
    const applied = { ...change, state: "APPLIED", decided_by: "admin-b@example.com", decided_at: "2026-03-01T11:00:00.000Z", applied_version: 4, credential_id: "k", user_verified: true, digest: "g" }
    const page = { pending: change, pending_before: DEFAULT_POLICY, version: 3, items: [change, applied] }
    expect(policyChangesPageSchema.parse(page)).toEqual(page)
    expect(policyChangesPageSchema.parse({ pending: null, pending_before: null, version: 4, items: [] })).toMatchObject({ pending: null, items: [] })
    expect(policyChangesPageSchema.safeParse({ ...page, items: [{ ...change, state: "LOST" }] }).success).toBe(false)
    expect(policyChangeAnswerSchema.safeParse({}).success).toBe(false)
  })
})
