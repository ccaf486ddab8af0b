import { z } from "zod"
import { ROLES } from "@/lib/auth/roles"
import { FIAT_DECIMALS, toDecimal } from "@/lib/money"
import { FIAT_ASSETS } from "@/lib/schemas/assets"
import { amountSchema } from "@/lib/schemas/money"

/**
 * The approval policy and approval requests as the console API answers them, and the
 * bodies it takes: declared once for the route handlers, the forms and the pages.
 */

export const POLICY_CURRENCIES = FIAT_ASSETS
export type PolicyCurrency = (typeof POLICY_CURRENCIES)[number]

const fiat = amountSchema(FIAT_DECIMALS)

/**
 * An amount per currency; a currency left out has no threshold or limit. Another key is
 * refused as an unrecognized key (a partial record's own wording: an error message on
 * the key's enum would never be shown).
 */
const perCurrency = z.partialRecord(z.enum(POLICY_CURRENCIES), fiat)

const limitsSchema = z.strictObject({
  per_order: perCurrency,
  per_day: perCurrency,
})
export type Limits = z.infer<typeof limitsSchema>

/** Roles that may approve (the console's own order: traders and admins). */
export const APPROVER_ROLES = ["trader", "admin"] as const
export type ApproverRole = (typeof APPROVER_ROLES)[number]

/**
 * An approval tier: a request whose size is at or over `at_or_over` in its currency needs
 * `approvers` distinct people (the maker never counts), each with one of `roles`.
 */
export const tierSchema = z.strictObject({
  at_or_over: perCurrency.refine((amounts) => Object.keys(amounts).length > 0, "name where the tier starts in at least one currency"),
  approvers: z
    .number({ error: "must be a whole number of approvers" })
    .int()
    .min(1, "must be at least 1")
    .max(5, "must be at most 5"),
  roles: z
    .array(z.enum(APPROVER_ROLES, { error: `must be one of ${APPROVER_ROLES.join(", ")}` }), { error: "must be a list of roles" })
    .min(1, "name at least one role that may approve")
    .refine((roles) => new Set(roles).size === roles.length, "must not repeat a role"),
})
export type Tier = z.infer<typeof tierSchema>

/** An amount's value as a key (100 and 100.00 are one amount); an invalid one as written (its own issue says why). */
function sameAmount(amount: string): string {
  try {
    return toDecimal(amount).toFixed()
  } catch {
    return amount
  }
}

const tiersSchema = z
  .array(tierSchema, { error: "must be a list of tiers" })
  .max(10, "at most 10 tiers")
  .superRefine((tiers, ctx) => {
    // Within a currency, one tier per starting amount: which would apply is never a guess.
    const seen = new Map<string, number>()
    tiers.forEach((tier, i) => {
      for (const [currency, amount] of Object.entries(tier.at_or_over)) {
        const key = `${currency}:${sameAmount(amount)}`
        const first = seen.get(key)
        if (first !== undefined) ctx.addIssue({ code: "custom", path: [i, "at_or_over", currency], message: `tier ${first + 1} starts at the same amount` })
        else seen.set(key, i)
      }
    })
  })

export const policySchema = z.strictObject({
  /** Orders at or over these sizes wait for a second person. */
  approval_thresholds: z.strictObject({
    execution: perCurrency,
    conversion: perCurrency,
  }),
  /**
   * Tiers by amount: the tier with the highest `at_or_over` the request reaches in its
   * currency says how many approvers and which roles. Left out (or none reached): one
   * approver, a trader or an admin.
   */
  approval_tiers: tiersSchema.optional(),
  /**
   * Orders at or over these sizes need the maker's fresh passkey assertion to be submitted
   * (STEP_UP=webauthn), bound to the digest of exactly that order. Left out: none.
   */
  step_up_over: perCurrency.optional(),
  /**
   * Orders at or over these sizes ask the trader to type the amount again before Confirm
   * (a unit slip is caught before it is sent). Left out: the defaults' sizes.
   */
  retype_amount_over: perCurrency.optional(),
  /** How far the limit price sits from the reviewed quote's price, against the maker, in percent. */
  price_tolerance_percent: z
    .string({ error: "must be a decimal string like \"0.5\"" })
    .regex(/^(?:\d{1,2})(?:\.\d{1,4})?$/, "must be a percentage from 0 to 99.9999 with at most 4 decimals"),
  /** Minutes a request waits before it expires. */
  request_ttl_minutes: z
    .number({ error: "must be a whole number of minutes" })
    .int() // the schema's error is this rule's message too
    .min(1, "must be at least 1")
    .max(7 * 24 * 60, "must be at most 10080 (7 days)"),
  /** Limits by role; a staff member listed under `staff` has those instead. */
  role_limits: z.partialRecord(z.enum(ROLES), limitsSchema),
  // An email that breaks a key's rule is answered with that rule (zod's own words: "Invalid key in record").
  staff_limits: z.record(z.email("must be an email address").max(200, "at most 200 characters"), limitsSchema, {
    error: (issue) => (issue.code === "invalid_key" ? issue.issues.map((i) => i.message).join(", ") : undefined),
  }),
})
export type Policy = z.infer<typeof policySchema>

/** The defaults in sandbox mode (and until an admin saves a policy). */
export const DEFAULT_POLICY: Policy = {
  approval_thresholds: {
    execution: { USD: "10000.00", EUR: "9000.00", SGD: "13000.00" },
    conversion: { USD: "10000.00" },
  },
  retype_amount_over: { USD: "25000.00", EUR: "22500.00", SGD: "32500.00" },
  price_tolerance_percent: "0.5",
  request_ttl_minutes: 240,
  role_limits: {
    trader: {
      per_order: { USD: "50000.00", EUR: "45000.00", SGD: "65000.00" },
      per_day: { USD: "250000.00", EUR: "225000.00", SGD: "325000.00" },
    },
    admin: {
      per_order: { USD: "50000.00", EUR: "45000.00", SGD: "65000.00" },
      per_day: { USD: "250000.00", EUR: "225000.00", SGD: "325000.00" },
    },
  },
  staff_limits: {},
}

export const usageSchema = z.object({
  staff_email: z.string(),
  currency: z.string(),
  used_today: z.string(),
  per_day: z.string().nullable(),
  per_order: z.string().nullable(),
})
export type Usage = z.infer<typeof usageSchema>

export const policyViewSchema = z.object({
  policy: policySchema,
  /** The version in force: each saved policy is the next number; 0 is the defaults. */
  version: z.number(),
  updated_at: z.string().nullable(),
  updated_by: z.string().nullable(),
  /** Each staff member's usage today (UTC), per currency. */
  usage_today: z.array(usageSchema),
  day: z.string(),
})
export type PolicyView = z.infer<typeof policyViewSchema>

export const APPROVAL_STATES = ["PENDING", "APPROVED", "REJECTED", "WITHDRAWN", "EXPIRED", "PRICE_MOVED", "VOIDED"] as const
export type ApprovalState = (typeof APPROVAL_STATES)[number]

/** Who asked, who decided, when and why: on a request, and on the intent page's story. */
export const approvalDecisionShape = {
  maker: z.object({ email: z.string(), role: z.string() }),
  checker: z.object({ email: z.string(), role: z.string() }).nullable(),
  created_at: z.string(),
  expires_at: z.string(),
  decided_at: z.string().nullable(),
  comment: z.string().nullable(),
  reason: z.string().nullable(),
}
export type ApprovalDecision = z.infer<z.ZodObject<typeof approvalDecisionShape>>

/** How a request stands for a person: its state, and once approved, how the placement went. */
export const approvalRequestSchema = z.object({
  id: z.string(),
  kind: z.enum(["execution", "conversion"]),
  state: z.enum(APPROVAL_STATES),
  /** PLACED once the record exists, FAILED when the service refused it, SENDING meanwhile. */
  placement: z.enum(["NOT_SENT", "SENDING", "PLACED", "FAILED"]),
  ref_id: z.string(),
  profile_id: z.string().nullable(),
  request: z.record(z.string(), z.unknown()),
  size: z.object({ amount: z.string(), currency: z.string() }),
  market: z.string().nullable(),
  side: z.string().nullable(),
  reviewed_price: z.string().nullable(),
  limit_price: z.string().nullable(),
  executed_price: z.string().nullable(),
  ...approvalDecisionShape,
  /**
   * Its approvals: how many distinct approvers its tier needs, which roles may approve or
   * reject, and each approval given so far (who, when, with which passkey).
   */
  approvals: z.object({
    required: z.number(),
    roles: z.array(z.enum(APPROVER_ROLES)),
    given: z.array(
      z.object({
        email: z.string(),
        role: z.string(),
        at: z.string(),
        credential_id: z.string().nullable(),
        user_verified: z.boolean().nullable(),
      }),
    ),
  }),
  /** The policy version it was judged under (its tier and limits); null for a request from before versions. */
  policy_version: z.number().nullable(),
  record_id: z.string().nullable(),
  record_status: z.string().nullable(),
  problem: z.object({ title: z.string(), detail: z.string().nullable() }).nullable(),
})
export type ApprovalRequest = z.infer<typeof approvalRequestSchema>

export const approvalPageSchema = z.object({
  items: z.array(approvalRequestSchema),
  pending_count: z.number(),
  /** Pending requests the caller may approve: everyone's but their own. */
  pending_for_you: z.number(),
})
export type ApprovalPage = z.infer<typeof approvalPageSchema>

export const approvalListQuerySchema = z.strictObject({
  state: z.enum(APPROVAL_STATES, { error: `must be one of ${APPROVAL_STATES.join(", ")}` }).optional(),
  // The schema's error is the whole-number rule's message too.
  limit: z.coerce.number({ error: "must be a whole number" }).int().min(1, "must be at least 1").max(200, "must be at most 200").default(50),
})
export type ApprovalListQuery = z.infer<typeof approvalListQuerySchema>

const comment = z.string({ error: "must be text" }).trim().max(500, "at most 500 characters")

/** A passkey assertion as @simplewebauthn/browser's startAuthentication answers it (step-up). */
export const assertionSchema = z.looseObject({
  id: z.string().max(1024),
  rawId: z.string().max(1024),
  type: z.literal("public-key"),
  response: z.looseObject({
    clientDataJSON: z.string().max(4096),
    authenticatorData: z.string().max(4096),
    signature: z.string().max(1024),
    userHandle: z.string().max(1024).optional(),
  }),
})
export type Assertion = z.infer<typeof assertionSchema>

export const approveBodySchema = z.strictObject({ comment: comment.optional(), step_up: assertionSchema.optional() })
export const bulkApproveBodySchema = z.strictObject({
  ids: z
    .array(z.uuid("each must be a request id"))
    .min(1, "name at least one request")
    .max(20, "at most 20 requests at once")
    .refine((ids) => new Set(ids).size === ids.length, "must not repeat a request"),
  comment: comment.optional(),
  step_up: assertionSchema.optional(),
})
export const rejectBodySchema = z.strictObject({
  reason: comment.min(1, "give a reason for the rejection"),
  comment: comment.optional(),
  step_up: assertionSchema.optional(),
})
export const withdrawBodySchema = z.strictObject({ comment: comment.optional() })

/** PUT /api/policy: the policy, and (STEP_UP=webauthn, a single admin) the passkey assertion in `step_up`. */
export const policyPutBodySchema = z.strictObject({ ...policySchema.shape, step_up: assertionSchema.optional() })

export const POLICY_CHANGE_STATES = ["PENDING", "APPLIED", "REJECTED", "WITHDRAWN", "STALE", "EXPIRED"] as const

/** A policy change under four eyes (GET /api/policy/changes, PUT /api/policy's 202). */
export const policyChangeSchema = z.object({
  id: z.string(),
  state: z.enum(POLICY_CHANGE_STATES),
  policy: policySchema,
  policy_digest: z.string(),
  /** The version it was made against: it applies only while that is the one in force. */
  base_version: z.number(),
  proposed_by: z.string(),
  proposed_at: z.string(),
  expires_at: z.string(),
  comment: z.string().nullable(),
  decided_by: z.string().nullable(),
  decided_at: z.string().nullable(),
  reason: z.string().nullable(),
  applied_version: z.number().nullable(),
  /** Applied at once by the only active admin (with their own step-up), flagged on the audit trail. */
  single_admin: z.boolean(),
  credential_id: z.string().nullable(),
  user_verified: z.boolean().nullable(),
  digest: z.string().nullable(),
})
export type PolicyChangeView = z.infer<typeof policyChangeSchema>

export const policyChangesPageSchema = z.object({
  pending: policyChangeSchema.nullable(),
  /** The policy the pending change was made against (its base version's), for its diff; null with none pending. */
  pending_before: policySchema.nullable(),
  /** The version in force now (a pending change whose base is another one would be refused as stale). */
  version: z.number(),
  items: z.array(policyChangeSchema),
})
export type PolicyChangesPage = z.infer<typeof policyChangesPageSchema>

/** PUT /api/policy's 202: the change waits for another admin. */
export const policyChangeAnswerSchema = z.object({ change: policyChangeSchema })
