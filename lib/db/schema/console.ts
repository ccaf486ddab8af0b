import { sql } from "drizzle-orm"
import type { ApprovalState } from "@/lib/schemas/approvals"
import { bigserial, boolean, check, index, integer, jsonb, numeric, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core"

export const INTENT_OPERATIONS = ["create_execution", "create_conversion", "cancel_conversion", "update_policy", "replay_event", "take_snapshot", "update_notifications"] as const
export type IntentOperation = (typeof INTENT_OPERATIONS)[number]
/**
 * AWAITING_APPROVAL: a create held for a second person; nothing is sent until it is approved.
 * REFUSED: a create the console refused before sending anything (over a limit, a request
 * that failed validation, no held quote): on the audit trail, never sent, never retried.
 */
export const INTENT_STATES = ["PENDING", "SUCCEEDED", "FAILED", "UNKNOWN", "AWAITING_APPROVAL", "REFUSED"] as const
export type IntentState = (typeof INTENT_STATES)[number]

/**
 * Write-ahead rows for every create and cancel the console sends to the service, and
 * the audit trail of who did what. A row is PENDING before the request leaves; it ends
 * SUCCEEDED (record id and status), FAILED (the problem), or UNKNOWN until reconciled.
 */
export const consoleIntents = pgTable(
  "console_intents",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    createdAt: timestamp("created_at", { withTimezone: true, precision: 6 }).notNull().defaultNow(),
    /** The order intents were written in: breaks ties of `createdAt` (migration 0027). */
    seq: bigserial("seq", { mode: "number" }).notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true, precision: 6 }).notNull().defaultNow(),
    staffEmail: text("staff_email").notNull(),
    staffRole: text("staff_role").notNull(),
    operation: text("operation").$type<IntentOperation>().notNull(),
    profileId: text("profile_id"),
    /** The ref_id a create was sent with; null for a cancel, which the service takes none for. */
    refId: text("ref_id"),
    /** The record a cancel acts on (the conversion's id), "policy" for a policy change; null for a create. */
    targetId: text("target_id"),
    request: jsonb("request").$type<Record<string, unknown>>().notNull(),
    /**
     * Which of the service's conversion APIs a conversion intent went to
     * ("stablecoin-conversions" or "orchestrations"); null for quote executions.
     */
    upstreamApi: text("upstream_api"),
    state: text("state").$type<IntentState>().notNull().default("PENDING"),
    attempts: integer("attempts").notNull().default(0),
    recordId: text("record_id"),
    recordStatus: text("record_status"),
    problem: jsonb("problem").$type<Record<string, unknown>>(),
    resolvedAt: timestamp("resolved_at", { withTimezone: true, precision: 6 }),
    /** A create's size in fiat (what the policy's limits count), and its currency. */
    sizeAmount: numeric("size_amount"),
    sizeCurrency: text("size_currency"),
    /** The market and side a quote execution was for (null for conversions and cancels, or not known). */
    market: text("market"),
    side: text("side"),
    /**
     * A placed record's final status (SETTLED, CANCELLED, …) when it reached one after
     * placement, and when the console learned it: what a notification announces.
     * `record_status` keeps what the service answered at placement.
     */
    recordFinalStatus: text("record_final_status"),
    recordFinalAt: timestamp("record_final_at", { withTimezone: true, precision: 6 }),
  },
  (t) => [
    index("console_intents_created_idx").on(t.createdAt.desc(), t.seq.desc()),
    index("console_intents_unresolved_idx")
      .on(t.state, t.updatedAt)
      .where(sql`${t.state} in ('PENDING', 'UNKNOWN')`),
    index("console_intents_staff_idx").on(t.staffEmail, t.createdAt.desc()),
    // A create is keyed by its ref_id, a cancel by the record it cancels (a policy change by
    // "policy", an event's replay by the event's id, a balance snapshot by its id, a change of the
    // team's notification settings by the channel's id or "large_order"): never both, never
    // neither. A refused create holds no ref_id, so the ref_id stays free for a corrected order.
    check(
      "console_intents_key_check",
      sql`(${t.operation} in ('cancel_conversion', 'update_policy', 'replay_event', 'take_snapshot', 'update_notifications') and ${t.targetId} is not null and ${t.refId} is null) or (${t.operation} not in ('cancel_conversion', 'update_policy', 'replay_event', 'take_snapshot', 'update_notifications') and ${t.targetId} is null and (${t.refId} is not null or ${t.state} = 'REFUSED'))`,
    ),
    // One intent per create and ref_id: concurrent identical submissions meet here.
    uniqueIndex("console_intents_create_ref_idx")
      .on(t.operation, t.refId)
      .where(sql`${t.operation} <> 'cancel_conversion'`),
    // Usage today: a staff member's creates of one day.
    // A person's records that reached a final status, newest last: their notifications.
    index("console_intents_final_idx").on(t.staffEmail, t.recordFinalAt).where(sql`${t.recordFinalAt} is not null`),
    index("console_intents_usage_idx").on(t.staffEmail, t.sizeCurrency, t.createdAt).where(sql`${t.sizeAmount} is not null`),
  ],
)
export type ConsoleIntent = typeof consoleIntents.$inferSelect

/**
 * Console settings changed at runtime, shared by every instance: today only the
 * conversion API an admin picked for a sandbox demo (key `conversions_api`).
 */
export const consoleSettings = pgTable("console_settings", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
  updatedAt: timestamp("updated_at", { withTimezone: true, precision: 6 }).notNull().defaultNow(),
  updatedBy: text("updated_by").notNull(),
})

/** The approval policy: one row (id 1), the whole policy as JSON, checked by its zod schema on read and write. */
export const consolePolicy = pgTable("console_policy", {
  id: integer("id").primaryKey(),
  policy: jsonb("policy").$type<Record<string, unknown>>().notNull(),
  updatedAt: timestamp("updated_at", { withTimezone: true, precision: 6 }).notNull().defaultNow(),
  updatedBy: text("updated_by").notNull(),
  /** The version in force (console_policy_versions); 0 is the defaults, never saved. */
  version: integer("version").notNull().default(1),
})

/** Every policy ever saved, numbered from 1: what a request was judged under stays readable. */
export const consolePolicyVersions = pgTable("console_policy_versions", {
  version: integer("version").primaryKey(),
  policy: jsonb("policy").$type<Record<string, unknown>>().notNull(),
  createdAt: timestamp("created_at", { withTimezone: true, precision: 6 }).notNull(),
  createdBy: text("created_by").notNull(),
})

export const POLICY_CHANGE_STATES = ["PENDING", "APPLIED", "REJECTED", "WITHDRAWN", "STALE", "EXPIRED"] as const
export type PolicyChangeState = (typeof POLICY_CHANGE_STATES)[number]

/**
 * A policy change under four eyes (migration 0024): proposed by one admin, applied when
 * another approves it with step-up, as long as the version it was made against is still
 * the one in force. At most one is PENDING at a time (a partial unique index). A change a
 * single admin applied at once is kept here too, APPLIED with `single_admin`.
 */
export const consolePolicyChanges = pgTable(
  "console_policy_changes",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    state: text("state").$type<PolicyChangeState>().notNull(),
    policy: jsonb("policy").$type<Record<string, unknown>>().notNull(),
    /** The SHA-256 of the proposed policy's canonical JSON: what an approver's passkey signs (with the id and base version). */
    policyDigest: text("policy_digest").notNull(),
    /** The version in force when it was proposed: it applies only while that is still the one. */
    baseVersion: integer("base_version").notNull(),
    proposedBy: text("proposed_by").notNull(),
    proposedAt: timestamp("proposed_at", { withTimezone: true, precision: 6 }).notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true, precision: 6 }).notNull(),
    comment: text("comment"),
    decidedBy: text("decided_by"),
    decidedAt: timestamp("decided_at", { withTimezone: true, precision: 6 }),
    reason: text("reason"),
    appliedVersion: integer("applied_version"),
    singleAdmin: boolean("single_admin").notNull().default(false),
    credentialId: text("credential_id"),
    userVerified: boolean("user_verified"),
    digest: text("digest"),
  },
  (t) => [
    check("console_policy_changes_state", sql`${t.state} in ('PENDING', 'APPLIED', 'REJECTED', 'WITHDRAWN', 'STALE', 'EXPIRED')`),
    uniqueIndex("console_policy_changes_one_pending_idx").on(t.state).where(sql`${t.state} = 'PENDING'`),
    index("console_policy_changes_proposed_idx").on(t.proposedAt.desc()),
  ],
)
export type ConsolePolicyChange = typeof consolePolicyChanges.$inferSelect

/**
 * A create that waits for a second person. Its intent (same id) holds the request and,
 * once approved, its outcome; this row holds who asked, who decided, and the price rule.
 */
export const consoleApprovals = pgTable(
  "console_approvals",
  {
    intentId: uuid("intent_id")
      .primaryKey()
      .references(() => consoleIntents.id),
    kind: text("kind").$type<"execution" | "conversion">().notNull(),
    state: text("state").$type<ApprovalState>().notNull().default("PENDING"),
    makerEmail: text("maker_email").notNull(),
    makerRole: text("maker_role").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, precision: 6 }).notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true, precision: 6 }).notNull(),
    /** What the maker asked for; the intent's request becomes what is sent once approved. */
    request: jsonb("request").$type<Record<string, unknown>>().notNull(),
    sizeAmount: numeric("size_amount").notNull(),
    sizeCurrency: text("size_currency").notNull(),
    market: text("market"),
    side: text("side"),
    /** The reviewed quote's price, and the worst price the maker accepts. */
    reviewedPrice: numeric("reviewed_price"),
    limitPrice: numeric("limit_price"),
    checkerEmail: text("checker_email"),
    checkerRole: text("checker_role"),
    decidedAt: timestamp("decided_at", { withTimezone: true, precision: 6 }),
    comment: text("comment"),
    reason: text("reason"),
    /** The price of the held quote the approval executed (or found beyond the limit). */
    executedPrice: numeric("executed_price"),
    /** Distinct approvers needed (the policy's tier when it was asked; 1 before tiers). */
    requiredApprovals: integer("required_approvals").notNull().default(1),
    /** Roles that may approve or reject it; null: a trader or an admin (before tiers). */
    approverRoles: jsonb("approver_roles").$type<("trader" | "admin")[]>(),
    /** The policy version it was judged under (0: the defaults); null for requests from before versions. */
    policyVersion: integer("policy_version"),
  },
  (t) => [
    index("console_approvals_state_idx").on(t.state, t.createdAt.desc()),
    index("console_approvals_maker_idx").on(t.makerEmail, t.createdAt.desc()),
  ],
)
export type ConsoleApproval = typeof consoleApprovals.$inferSelect

/**
 * Each approval given to a request: who, when, and their step-up (credential, user
 * verification, the digest signed). One per person per request: approvers are distinct.
 * The request places when the last of its `required_approvals` lands.
 */
export const consoleApprovalVotes = pgTable(
  "console_approval_votes",
  {
    intentId: uuid("intent_id")
      .notNull()
      .references(() => consoleApprovals.intentId),
    /** Lower-case. */
    staffEmail: text("staff_email").notNull(),
    staffRole: text("staff_role").notNull(),
    at: timestamp("at", { withTimezone: true, precision: 6 }).notNull(),
    credentialId: text("credential_id"),
    userVerified: boolean("user_verified"),
    digest: text("digest"),
    comment: text("comment"),
  },
  (t) => [primaryKey({ name: "console_approval_votes_pk", columns: [t.intentId, t.staffEmail] })],
)
export type ConsoleApprovalVote = typeof consoleApprovalVotes.$inferSelect

/**
 * The console's memory of the held quotes it served, per staff member (shared by every
 * instance): an execution's limit price comes only from a quote served to its maker.
 * A row is kept a short while past the quote's expiry (`remember_until`), then purged.
 */
export const consoleServedQuotes = pgTable(
  "console_served_quotes",
  {
    staffEmail: text("staff_email").notNull(),
    quoteId: text("quote_id").notNull(),
    market: text("market").notNull(),
    side: text("side").notNull(),
    /** The price exactly as served (a decimal string). */
    price: text("price").notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true, precision: 6 }).notNull(),
    servedAt: timestamp("served_at", { withTimezone: true, precision: 6 }).notNull(),
    rememberUntil: timestamp("remember_until", { withTimezone: true, precision: 6 }).notNull(),
  },
  (t) => [primaryKey({ name: "console_served_quotes_pk", columns: [t.staffEmail, t.quoteId] }), index("console_served_quotes_until_idx").on(t.rememberUntil)],
)
export type ConsoleServedQuote = typeof consoleServedQuotes.$inferSelect
