import { bigint, bigserial, boolean, index, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core"

const at = (name: string) => timestamp(name, { withTimezone: true, precision: 6 })

/** Staff passkeys (WebAuthn credentials): one person may have several, each named by them. */
export const consolePasskeys = pgTable(
  "console_passkeys",
  {
    /** The credential id, base64url, as the authenticator made it. */
    id: text("id").primaryKey(),
    staffEmail: text("staff_email").notNull(),
    name: text("name").notNull(),
    /** The COSE public key, base64url. */
    publicKey: text("public_key").notNull(),
    counter: bigint("counter", { mode: "number" }).notNull().default(0),
    transports: jsonb("transports").$type<string[]>().notNull().default([]),
    createdAt: at("created_at").notNull(),
    lastUsedAt: at("last_used_at"),
  },
  (t) => [index("console_passkeys_staff_idx").on(t.staffEmail)],
)
export type ConsolePasskey = typeof consolePasskeys.$inferSelect

/**
 * One-time WebAuthn challenges, kept on the server (shared by every instance), 2 minutes
 * each: `register` for a new passkey; `step_up` bound to the digest of what it authorises.
 * Taking one marks it used (kept a day, so a replay is told apart from a forgery).
 */
export const consoleWebauthnChallenges = pgTable(
  "console_webauthn_challenges",
  {
    challenge: text("challenge").primaryKey(),
    purpose: text("purpose").$type<"register" | "step_up" | "sign_in">().notNull(),
    staffEmail: text("staff_email").notNull(),
    /** step_up: the hex SHA-256 of what the assertion authorises. */
    digest: text("digest"),
    createdAt: at("created_at").notNull(),
    expiresAt: at("expires_at").notNull(),
    /** Set when taken: a challenge answers one ceremony only. */
    usedAt: at("used_at"),
  },
  (t) => [index("console_webauthn_challenges_expires_idx").on(t.expiresAt)],
)

/**
 * Every decision attempt on an approval request (approve, reject), refused ones too:
 * who, the outcome, the problem code of a refusal, and with step-up the credential, user
 * verification and the digest signed.
 */
export const consoleApprovalDecisions = pgTable(
  "console_approval_decisions",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    at: at("at").notNull(),
    /** The order attempts were written in: breaks ties of `at` (migration 0027). */
    seq: bigserial("seq", { mode: "number" }).notNull(),
    /** approve, reject; or a policy change's: policy_propose, policy_apply (a single admin's), policy_approve, policy_reject, policy_withdraw. */
    action: text("action").$type<"approve" | "reject" | "policy_propose" | "policy_apply" | "policy_approve" | "policy_reject" | "policy_withdraw">().notNull(),
    /** The request(s) decided on (several for a bulk approval), or the policy change. */
    intentIds: jsonb("intent_ids").$type<string[]>().notNull(),
    staffEmail: text("staff_email").notNull(),
    staffRole: text("staff_role").notNull(),
    /** `done`, or the problem code that refused it. */
    outcome: text("outcome").notNull(),
    credentialId: text("credential_id"),
    userVerified: boolean("user_verified"),
    digest: text("digest"),
  },
  (t) => [index("console_approval_decisions_at_idx").on(t.at.desc())],
)
export type ConsoleApprovalDecision = typeof consoleApprovalDecisions.$inferSelect
