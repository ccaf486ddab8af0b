import { APPROVER_ROLES, type ApproverRole, type Policy, POLICY_CURRENCIES, type Tier, policySchema } from "@/lib/schemas/approvals"

/**
 * The policy form's state: every field as the text in its input ("" = not set), and its
 * conversion back to a policy, checked by the API's own schema so each error names its
 * field and rule before anything is sent.
 */

export const LIMIT_ROLES = ["trader", "admin"] as const
type Amounts = Partial<Record<(typeof POLICY_CURRENCIES)[number], string>>

export interface LimitsDraft {
  per_order: Record<string, string>
  per_day: Record<string, string>
}

export interface StaffDraft extends LimitsDraft {
  /** A stable key for the row while its email is edited. */
  key: string
  email: string
}

/** An approval tier as the form holds it: where it starts per currency, how many approvers, which roles. */
export interface TierDraft {
  key: string
  at_or_over: Record<string, string>
  approvers: string
  roles: Record<ApproverRole, boolean>
}

export interface PolicyDraft {
  tiers: TierDraft[]
  /** Orders at or over these need the maker's passkey (empty: none). */
  step_up_over: Record<string, string>
  thresholds: { execution: Record<string, string>; conversion: Record<string, string> }
  price_tolerance_percent: string
  request_ttl_minutes: string
  roles: Record<string, LimitsDraft>
  staff: StaffDraft[]
}

const texts = (amounts: Amounts | undefined): Record<string, string> =>
  Object.fromEntries(POLICY_CURRENCIES.map((c) => [c, amounts?.[c] ?? ""]))

const limitsDraft = (limits: { per_order: Amounts; per_day: Amounts } | undefined): LimitsDraft => ({
  per_order: texts(limits?.per_order),
  per_day: texts(limits?.per_day),
})

let rows = 0

export function newStaffRow(): StaffDraft {
  return { key: `staff-${rows++}`, email: "", ...limitsDraft(undefined) }
}

export function newTierRow(tier?: Tier): TierDraft {
  return {
    key: `tier-${rows++}`,
    at_or_over: texts(tier?.at_or_over),
    approvers: tier ? String(tier.approvers) : "2",
    roles: Object.fromEntries(APPROVER_ROLES.map((r) => [r, tier ? tier.roles.includes(r) : true])) as Record<ApproverRole, boolean>,
  }
}

export function draftOf(policy: Policy): PolicyDraft {
  return {
    tiers: (policy.approval_tiers ?? []).map((tier) => newTierRow(tier)),
    step_up_over: texts(policy.step_up_over),
    thresholds: { execution: texts(policy.approval_thresholds.execution), conversion: texts(policy.approval_thresholds.conversion) },
    price_tolerance_percent: policy.price_tolerance_percent,
    request_ttl_minutes: String(policy.request_ttl_minutes),
    roles: Object.fromEntries(LIMIT_ROLES.map((role) => [role, limitsDraft(policy.role_limits[role])])),
    staff: Object.entries(policy.staff_limits).map(([email, limits]) => ({ ...newStaffRow(), email, ...limitsDraft(limits) })),
  }
}

/** Only the currencies with a value: a currency left empty has no threshold or limit. */
const amounts = (values: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.entries(values).flatMap(([c, v]) => (v.trim() === "" ? [] : [[c, v.trim()]])))

const limits = (draft: LimitsDraft) => ({ per_order: amounts(draft.per_order), per_day: amounts(draft.per_day) })

/**
 * The policy the draft describes, or the errors by field path (the same paths the API
 * answers with: `role_limits.trader.per_order.USD`, `staff.2.email`). Roles the form does
 * not show (viewer, support) keep what `base` says.
 */
export function policyFromDraft(draft: PolicyDraft, base: Policy): { policy: Policy; errors: null } | { policy: null; errors: Record<string, string> } {
  const errors: Record<string, string> = {}
  const staff: Record<string, unknown> = {}
  draft.staff.forEach((row, i) => {
    const email = row.email.trim().toLowerCase()
    if (email === "") {
      errors[`staff.${i}.email`] = "is required (or remove the row)"
      return
    }
    if (email in staff) errors[`staff.${i}.email`] = "is listed twice"
    staff[email] = limits(row)
  })
  const ttl = draft.request_ttl_minutes.trim()
  const tiers = draft.tiers.map((tier) => {
    const approvers = tier.approvers.trim()
    return {
      at_or_over: amounts(tier.at_or_over),
      approvers: /^\d{1,9}$/.test(approvers) ? Number(approvers) : approvers,
      roles: APPROVER_ROLES.filter((r) => tier.roles[r]),
    }
  })
  const candidate = {
    approval_thresholds: { execution: amounts(draft.thresholds.execution), conversion: amounts(draft.thresholds.conversion) },
    price_tolerance_percent: draft.price_tolerance_percent.trim(),
    request_ttl_minutes: /^\d{1,9}$/.test(ttl) ? Number(ttl) : ttl,
    role_limits: { ...base.role_limits, ...Object.fromEntries(LIMIT_ROLES.map((role) => [role, limits(draft.roles[role] ?? limitsDraft(undefined))])) },
    staff_limits: staff,
    // No tiers: one approver, a trader or an admin (the field is left out, as before tiers).
    ...(tiers.length > 0 ? { approval_tiers: tiers } : {}),
    // None set: the field is left out (no order needs a passkey to be placed).
    ...(Object.keys(amounts(draft.step_up_over)).length > 0 ? { step_up_over: amounts(draft.step_up_over) } : {}),
    // Not edited here: kept as saved (absent means the defaults' sizes).
    ...(base.retype_amount_over ? { retype_amount_over: base.retype_amount_over } : {}),
  }
  const parsed = policySchema.safeParse(candidate)
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const path = issue.path.map(String)
      // A staff row's errors are named by its row, whatever its email says.
      if (path[0] === "staff_limits" && path[1] !== undefined) {
        const row = draft.staff.findIndex((r) => r.email.trim().toLowerCase() === path[1])
        const rest = path.slice(2)
        errors[rest.length === 0 ? `staff.${row}.email` : `staff.${row}.${rest.join(".")}`] ??= issue.message
        continue
      }
      errors[path.join(".") || "policy"] ??= issue.message
    }
  }
  if (Object.keys(errors).length > 0 || !parsed.success) return { policy: null, errors }
  return { policy: parsed.data, errors: null }
}

/** The form's field path for an error the API answered with (its staff paths are by email). */
export function formPath(apiPath: string, draft: PolicyDraft): string {
  const match = /^staff_limits\.(.+?)(\.per_(?:order|day)\.[A-Z]{3})?$/.exec(apiPath)
  if (!match?.[1]) return apiPath
  const row = draft.staff.findIndex((r) => r.email.trim().toLowerCase() === match[1]!.toLowerCase())
  return row < 0 ? apiPath : `staff.${row}${match[2] ?? ".email"}`
}
