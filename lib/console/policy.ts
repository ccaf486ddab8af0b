import "server-only"
import { type SQL, and, desc, eq, gte, inArray, isNotNull, lt, notInArray, sql } from "drizzle-orm"
import type { Staff } from "@/lib/auth/roles"
import { recordPolicyChange } from "@/lib/console/intents"
import { boundedTransaction } from "@/lib/db/bounded"
import type { Db } from "@/lib/db/client"
import { consoleIntents, consolePolicy, consolePolicyVersions } from "@/lib/db/schema"
import { type OrderSize, atOrOverThreshold, conversionSize, executionSize, limitBreach } from "@/lib/limits"
import { type Decimal, FIAT_DECIMALS, toDecimal } from "@/lib/money"
import { formatAmount } from "@/lib/format"
import { limitExceeded, validationFailed } from "@/lib/problem"
import { inDbSpan } from "@/lib/tracing"
import { DEFAULT_POLICY, type Limits, type Policy, type PolicyView, type Usage, policySchema } from "@/lib/schemas/approvals"

export type Clock = () => Date

export type { OrderSize }
export { conversionSize, executionSize }

const POLICY_ROW = 1

export interface StoredPolicy {
  policy: Policy
  /** Its version number (console_policy_versions); 0 for the defaults, never saved. */
  version: number
  updatedAt: Date | null
  updatedBy: string | null
}

/** The policy in force: the saved one, or the defaults until an admin saves one. */
export function readPolicy(db: Db): Promise<StoredPolicy> {
  return inDbSpan("policy.read", async () => {
    const [row] = await db.select().from(consolePolicy).where(eq(consolePolicy.id, POLICY_ROW)).limit(1)
    if (!row) return { policy: DEFAULT_POLICY, version: 0, updatedAt: null, updatedBy: null }
    return { policy: policySchema.parse(row.policy), version: row.version, updatedAt: row.updatedAt, updatedBy: row.updatedBy }
  })
}

/** The saved policy's JSON, as a value inside another query (null until an admin saves one). */
export const storedPolicyJson = sql<unknown>`(select ${consolePolicy.policy} from ${consolePolicy} where ${eq(consolePolicy.id, POLICY_ROW)})`

/** The version of the policy in force, as a value inside another query (0: the defaults, never saved). */
export const storedPolicyVersion = sql<number>`coalesce((select ${consolePolicy.version} from ${consolePolicy} where ${eq(consolePolicy.id, POLICY_ROW)}), 0)`

/** The policy in force from the saved policy's JSON (`storedPolicyJson`): the defaults when there is none. */
export function policyFromJson(json: unknown): Policy {
  if (json === null || json === undefined) return DEFAULT_POLICY
  return policySchema.parse(typeof json === "string" ? JSON.parse(json) : json)
}

/** What the audit entry of a policy change carries besides before, after and version (who proposed, who approved, a single admin's change). */
export type PolicyChangeFacts = Record<string, unknown>

/**
 * Saves the policy as its next version (kept in console_policy_versions, numbered from 1);
 * the change goes on the audit trail with the policy before and after (and `facts`).
 * The lower level of a change: PUT /api/policy goes through lib/console/policy-changes.ts
 * (four eyes); tests and the sandbox's set-ups save directly.
 */
export async function savePolicy(db: Db, staff: Staff, policy: Policy, now: Clock = () => new Date(), facts: PolicyChangeFacts = {}): Promise<StoredPolicy> {
  const at = now()
  return boundedTransaction(db, async (tx) => {
    await lockPolicy(tx)
    return applyPolicy(tx, staff, policy, at, facts)
  })
}

// Stryker disable all: mutation runs use PGlite (one connection); policy.test.ts checks this lock on Postgres.
/** One writer of the policy at a time (in the caller's transaction), so each audit entry's "before" is the policy it replaced. */
export async function lockPolicy(tx: Db): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext('console_policy'))`)
}
// Stryker restore all

/** Writes `policy` as the next version, in the caller's transaction, which holds lockPolicy. */
export async function applyPolicy(tx: Db, staff: Staff, policy: Policy, at: Date, facts: PolicyChangeFacts = {}): Promise<StoredPolicy> {
  const [row] = await tx.select().from(consolePolicy).where(eq(consolePolicy.id, POLICY_ROW)).limit(1)
  const before = row ? policySchema.parse(row.policy) : DEFAULT_POLICY
  // The row carries the number of the version in force, the newest kept (written together below;
  // migration 0021 numbered a row saved before versions 1 and kept it as version 1).
  const version = (row?.version ?? 0) + 1
  await tx.insert(consolePolicyVersions).values({ version, policy, createdAt: at, createdBy: staff.email })
  await tx
    .insert(consolePolicy)
    .values({ id: POLICY_ROW, policy: policy, updatedAt: at, updatedBy: staff.email, version })
    .onConflictDoUpdate({ target: consolePolicy.id, set: { policy: policy, updatedAt: at, updatedBy: staff.email, version } })
  await recordPolicyChange(tx, staff, { ...facts, before, after: policy, version }, at)
  return { policy, version, updatedAt: at, updatedBy: staff.email }
}

/** The start and end of the UTC day `at` falls in. */
export function utcDay(at: Date): { start: Date; end: Date } {
  const start = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()))
  return { start, end: new Date(start.getTime() + 24 * 60 * 60 * 1000) }
}

/** A staff member's own limits, else their role's; null when none apply. */
export function limitsFor(policy: Policy, staff: Staff): Limits | null {
  return policy.staff_limits[staff.email.toLowerCase()] ?? policy.role_limits[staff.role] ?? null
}

export function needsApproval(policy: Policy, kind: "execution" | "conversion", size: OrderSize): boolean {
  return atOrOverThreshold(policy.approval_thresholds[kind][size.currency as keyof Policy["approval_thresholds"]["execution"]], size)
}

const CREATES = ["create_execution", "create_conversion"] as const
/** Failed (rejected, withdrawn, expired, refused by the service) and refused creates use no limit. */
const NOT_USED: ("FAILED" | "REFUSED")[] = ["FAILED", "REFUSED"]

/**
 * What a staff member's creates of the UTC day add up to in one currency: placed ones,
 * ones in flight and requests waiting for approval; refused, rejected, withdrawn and
 * expired ones count nothing.
 */
export function usedToday(db: Db, email: string, currency: string, at: Date): Promise<Decimal> {
  return inDbSpan("usage.read", async () => {
    const [row] = await db.select({ total: usedTodaySum }).from(consoleIntents).where(usedTodayWhere(email, currency, at))
    return toDecimal(row?.total ?? "0")
  })
}

/** `usedToday` as parts of a query: the sum to select from console_intents, and the rows it adds up. */
export const usedTodaySum = sql<string | null>`sum(${consoleIntents.sizeAmount})`

export function usedTodayWhere(email: string, currency: string | undefined, at: Date): SQL | undefined {
  const { start, end } = utcDay(at)
  return and(
    eq(consoleIntents.staffEmail, email),
    // Every currency when none is named (the pre-trade facts group them).
    currency === undefined ? undefined : eq(consoleIntents.sizeCurrency, currency),
    inArray(consoleIntents.operation, [...CREATES]),
    notInArray(consoleIntents.state, NOT_USED),
    gte(consoleIntents.createdAt, start),
    lt(consoleIntents.createdAt, end),
  )
}

/** An amount for a person to read (the problem's detail): the one formatter, "23,716,977.50 USD". */
function money(value: Decimal, currency: string): string {
  return `${formatAmount(value.toFixed(FIAT_DECIMALS), currency)} ${currency}`
}

/**
 * Refuses an order over the staff member's limit per order or per UTC day, before anything
 * is sent: the problem says which limit, how much is used today and how much this order adds.
 * `whose` names the staff member when someone else is told (a checker approving their request).
 */
export function checkLimits(policy: Policy, staff: Staff, size: OrderSize, used: Decimal, options: { whose?: string } = {}): void {
  const limits = limitsFor(policy, staff)
  if (!limits) return
  const currency = size.currency as keyof Limits["per_order"]
  const perOrder = limits.per_order[currency]
  const perDay = limits.per_day[currency]
  const meta = {
    currency: size.currency,
    order_amount: size.amount.toFixed(FIAT_DECIMALS),
    used_today: used.toFixed(FIAT_DECIMALS),
    per_order_limit: perOrder ?? null,
    per_day_limit: perDay ?? null,
  }
  const breach = limitBreach({ per_order: perOrder, per_day: perDay }, size, used)
  if (breach?.limit === "per_order") {
    throw limitExceeded(`This order of ${money(size.amount, size.currency)} is over ${options.whose ? `${options.whose}'s` : "your"} limit per order of ${money(breach.amount, size.currency)}.`, {
      ...meta,
      limit: "per_order",
    })
  }
  if (breach?.limit === "per_day") {
    throw limitExceeded(
      `${options.whose ? `${options.whose}'s` : "Your"} daily limit is ${money(breach.amount, size.currency)} (UTC day); ${options.whose ? "they have" : "you have"} used ${money(used, size.currency)} today and this order adds ${money(size.amount, size.currency)}.`,
      { ...meta, limit: "per_day" },
    )
  }
}

/** The policy with every staff member's usage of the UTC day (those with any creates today). */
export async function policyView(db: Db, at: Date): Promise<PolicyView> {
  const stored = await readPolicy(db)
  const { start, end } = utcDay(at)
  const rows = await inDbSpan("usage.read", () =>
    db
      .select({
        email: consoleIntents.staffEmail,
        role: sql<string>`max(${consoleIntents.staffRole})`,
        currency: sql<string>`${consoleIntents.sizeCurrency}`,
        total: sql<string>`sum(${consoleIntents.sizeAmount})`,
      })
      .from(consoleIntents)
      .where(
        and(
          // An intent's size is written whole (amount and currency) or not at all.
          isNotNull(consoleIntents.sizeAmount),
          isNotNull(consoleIntents.sizeCurrency),
          inArray(consoleIntents.operation, [...CREATES]),
          notInArray(consoleIntents.state, NOT_USED),
          gte(consoleIntents.createdAt, start),
          lt(consoleIntents.createdAt, end),
        ),
      )
      .groupBy(consoleIntents.staffEmail, consoleIntents.sizeCurrency)
      .orderBy(consoleIntents.staffEmail, consoleIntents.sizeCurrency),
  )
  const usage: Usage[] = rows.map((row) => {
    const currency = row.currency
    const limits = limitsFor(stored.policy, { email: row.email, role: row.role as Staff["role"] })
    const key = currency as keyof Limits["per_order"]
    return {
      staff_email: row.email,
      currency,
      used_today: toDecimal(row.total).toFixed(FIAT_DECIMALS),
      per_day: limits?.per_day[key] ?? null,
      per_order: limits?.per_order[key] ?? null,
    }
  })
  return {
    policy: stored.policy,
    version: stored.version,
    updated_at: stored.updatedAt?.toISOString() ?? null,
    updated_by: stored.updatedBy,
    usage_today: usage,
    day: start.toISOString().slice(0, 10),
  }
}

/** Staff emails in `staff_limits` are keys: lower-case, so a look-up by a signed-in email finds them. */
export function normalizePolicy(policy: Policy): Policy {
  const staffLimits: Policy["staff_limits"] = {}
  for (const [email, limits] of Object.entries(policy.staff_limits)) {
    const key = email.toLowerCase()
    if (staffLimits[key]) throw validationFailed({ [`staff_limits.${email}`]: "is listed twice (emails compare without case)" })
    staffLimits[key] = limits
  }
  return { ...policy, staff_limits: staffLimits }
}

export interface PolicyVersionEntry {
  version: number
  policy: Policy
  created_at: string
  created_by: string
}

/** The policies saved, newest first (each a version, kept); `limit` of them. */
export async function listPolicyVersions(db: Db, limit: number): Promise<PolicyVersionEntry[]> {
  const rows = await db.select().from(consolePolicyVersions).orderBy(desc(consolePolicyVersions.version)).limit(limit)
  return rows.map((r) => ({ version: r.version, policy: policySchema.parse(r.policy), created_at: r.createdAt.toISOString(), created_by: r.createdBy }))
}
