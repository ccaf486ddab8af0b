import { sql } from "drizzle-orm"
import {
  bigint,
  boolean,
  check,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core"

/**
 * The embedded sandbox's state (lib/sandbox). Amounts and prices are numeric(38, 18):
 * exact, and read back as strings. Every timestamp comes from the sandbox's clock, so
 * tests can move time.
 */
const amount = (name: string) => numeric(name, { precision: 38, scale: 18 })
const at = (name: string) => timestamp(name, { withTimezone: true, precision: 6 })

/** OAuth clients: secrets stored as scrypt hashes only. */
export const sandboxClients = pgTable("sandbox_clients", {
  clientId: text("client_id").primaryKey(),
  secretHash: text("secret_hash").notNull(),
  scopes: text("scopes").array().notNull(),
  createdAt: at("created_at").notNull(),
})

/** Issued access tokens, by SHA-256 of the token (the token itself is never stored). */
export const sandboxTokens = pgTable(
  "sandbox_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    clientId: text("client_id")
      .notNull()
      .references(() => sandboxClients.clientId, { onDelete: "cascade" }),
    scopes: text("scopes").array().notNull(),
    createdAt: at("created_at").notNull(),
    expiresAt: at("expires_at").notNull(),
  },
  (t) => [index("sandbox_tokens_expires_idx").on(t.expiresAt)],
)

export const sandboxProfiles = pgTable("sandbox_profiles", {
  id: uuid("id").primaryKey().defaultRandom(),
  nickname: text("nickname").notNull().unique("sandbox_profiles_nickname_key"),
  type: text("type").$type<"NORMAL" | "DEFAULT">().notNull(),
  description: text("description"),
  createdAt: at("created_at").notNull(),
})

/**
 * One row per profile and asset. `available` can be spent; `trading` is committed to
 * pending executions and conversions. Neither may go below zero: debits are conditional
 * updates, and these checks are the last line of defence.
 */
export const sandboxBalances = pgTable(
  "sandbox_balances",
  {
    profileId: uuid("profile_id")
      .notNull()
      .references(() => sandboxProfiles.id, { onDelete: "cascade" }),
    asset: text("asset").notNull(),
    available: amount("available").notNull().default("0"),
    trading: amount("trading").notNull().default("0"),
    updatedAt: at("updated_at").notNull(),
  },
  (t) => [
    primaryKey({ name: "sandbox_balances_pk", columns: [t.profileId, t.asset] }),
    check("sandbox_balances_available_check", sql`${t.available} >= 0`),
    check("sandbox_balances_trading_check", sql`${t.trading} >= 0`),
  ],
)

/** The random walk's state: each asset's mid price in USD at a whole second (`slot`). */
export const sandboxPrices = pgTable("sandbox_prices", {
  asset: text("asset").primaryKey(),
  midUsd: amount("mid_usd").notNull(),
  slot: bigint("slot", { mode: "number" }).notNull(),
  updatedAt: at("updated_at").notNull(),
})

/**
 * Held quotes: at most one per market, side and window (a second, or the hold time when
 * that is shorter; the unique index makes it so). Ids carry the expiry (lib/sandbox/quotes.ts).
 */
export const sandboxQuotes = pgTable(
  "sandbox_quotes",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    market: text("market").notNull(),
    side: text("side").$type<"BUY" | "SELL">().notNull(),
    price: amount("price").notNull(),
    /** Mid price in the quote asset when quoted: the reference for the Rejected rule. */
    mid: amount("mid").notNull(),
    baseAsset: text("base_asset").notNull(),
    quoteAsset: text("quote_asset").notNull(),
    /** The start of the quote's window, in milliseconds since the epoch (whole seconds in rows made before that). */
    slot: bigint("slot", { mode: "number" }).notNull(),
    createdAt: at("created_at").notNull(),
    expiresAt: at("expires_at").notNull(),
  },
  (t) => [
    uniqueIndex("sandbox_quotes_market_side_slot_idx").on(t.market, t.side, t.slot),
    index("sandbox_quotes_expires_idx").on(t.expiresAt),
  ],
)

export const sandboxExecutions = pgTable(
  "sandbox_executions",
  {
    id: uuid("id").primaryKey(),
    profileId: uuid("profile_id")
      .notNull()
      .references(() => sandboxProfiles.id),
    /** No foreign key: expired quotes are pruned, executions stay. */
    quoteId: uuid("quote_id").notNull(),
    refId: text("ref_id"),
    status: text("status").$type<"CREATED" | "SETTLED">().notNull(),
    market: text("market").notNull(),
    side: text("side").$type<"BUY" | "SELL">().notNull(),
    price: amount("price").notNull(),
    baseAmount: amount("base_amount").notNull(),
    baseAsset: text("base_asset").notNull(),
    quoteAmount: amount("quote_amount").notNull(),
    quoteAsset: text("quote_asset").notNull(),
    metadata: jsonb("metadata").$type<Record<string, string>>(),
    identityId: text("identity_id"),
    accountId: text("account_id"),
    recipientProfileId: uuid("recipient_profile_id").references(() => sandboxProfiles.id),
    clientId: text("client_id").notNull(),
    createdAt: at("created_at").notNull(),
    settledAt: at("settled_at"),
  },
  (t) => [
    // ref_id is unique per profile; NULLs are distinct, so executions without one never clash.
    uniqueIndex("sandbox_executions_profile_ref_idx").on(t.profileId, t.refId),
    index("sandbox_executions_profile_created_idx").on(t.profileId, t.createdAt, t.id),
    index("sandbox_executions_pending_idx")
      .on(t.createdAt)
      .where(sql`${t.status} = 'CREATED'`),
  ],
)

export const sandboxConversions = pgTable(
  "sandbox_conversions",
  {
    id: uuid("id").primaryKey(),
    /** Conversions belong to the OAuth client (the "customer") that created them. */
    clientId: text("client_id").notNull(),
    profileId: uuid("profile_id")
      .notNull()
      .references(() => sandboxProfiles.id),
    amount: amount("amount").notNull(),
    sourceAsset: text("source_asset").notNull(),
    targetAsset: text("target_asset").notNull(),
    status: text("status").$type<"CREATED" | "SETTLED" | "CANCELLED">().notNull(),
    refId: text("ref_id"),
    identityId: text("identity_id").notNull(),
    accountId: text("account_id").notNull(),
    metadata: jsonb("metadata").$type<Record<string, string>>(),
    recipientProfileId: uuid("recipient_profile_id").references(() => sandboxProfiles.id),
    createdAt: at("created_at").notNull(),
    updatedAt: at("updated_at").notNull(),
    settledAt: at("settled_at"),
    cancelledAt: at("cancelled_at"),
  },
  (t) => [
    uniqueIndex("sandbox_conversions_client_ref_idx").on(t.clientId, t.refId),
    index("sandbox_conversions_client_created_idx").on(t.clientId, t.createdAt, t.id),
    index("sandbox_conversions_pending_idx")
      .on(t.createdAt)
      .where(sql`${t.status} = 'CREATED'`),
  ],
)

/**
 * Orchestrations (the service's replacement of stablecoin conversions), profile to
 * profile. Same ledger as conversions: the source is debited at PROCESSING, the
 * destination credited at COMPLETED, the source refunded at FAILED.
 */
export const sandboxOrchestrations = pgTable(
  "sandbox_orchestrations",
  {
    id: uuid("id").primaryKey(),
    /** Orchestrations belong to the OAuth client (the "customer") that created them. */
    clientId: text("client_id").notNull(),
    sourceProfileId: uuid("source_profile_id")
      .notNull()
      .references(() => sandboxProfiles.id),
    destinationProfileId: uuid("destination_profile_id")
      .notNull()
      .references(() => sandboxProfiles.id),
    sourceAmount: amount("source_amount").notNull(),
    sourceAsset: text("source_asset").notNull(),
    destinationAsset: text("destination_asset").notNull(),
    status: text("status").$type<"PENDING" | "PROCESSING" | "COMPLETED" | "FAILED" | "REJECTED">().notNull(),
    refId: text("ref_id").notNull(),
    identityId: text("identity_id").notNull(),
    accountId: text("account_id").notNull(),
    metadata: jsonb("metadata").$type<Record<string, string>>(),
    sourceTransferId: uuid("source_transfer_id").notNull(),
    destinationTransferId: uuid("destination_transfer_id").notNull(),
    /** Set at creation when a fault rule decided it fails at settlement; the detail shown then. */
    failDetail: text("fail_detail"),
    /** Set when a deposit rule started it (the service's "Automate"); none of the sandbox's own do. */
    orchestrationRuleId: text("orchestration_rule_id"),
    /** When it became PROCESSING (at creation, or when approved at the service): settlement counts from here. */
    processingAt: at("processing_at"),
    createdAt: at("created_at").notNull(),
    updatedAt: at("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("sandbox_orchestrations_client_ref_idx").on(t.clientId, t.refId),
    index("sandbox_orchestrations_client_created_idx").on(t.clientId, t.createdAt, t.id),
    index("sandbox_orchestrations_pending_idx")
      .on(t.createdAt)
      .where(sql`${t.status} = 'PROCESSING'`),
  ],
)

/** Sandbox deposits (funding), kept as an activity log. */
export const sandboxDeposits = pgTable("sandbox_deposits", {
  id: uuid("id").primaryKey(),
  clientId: text("client_id").notNull(),
  profileId: uuid("profile_id")
    .notNull()
    .references(() => sandboxProfiles.id),
  asset: text("asset").notNull(),
  amount: amount("amount").notNull(),
  cryptoNetwork: text("crypto_network"),
  cryptoAddress: text("crypto_address"),
  createdAt: at("created_at").notNull(),
})

/**
 * Runtime settings (one row, id 1): fault rules, settle delay, quote hold time, rate limits. `env_*`
 * remember the configuration they were last seeded from, so a changed environment wins
 * over stale settings at start-up while changes made through the admin API survive.
 */
export const sandboxSettings = pgTable("sandbox_settings", {
  id: integer("id").primaryKey(),
  seed: integer("seed").notNull(),
  settleDelayMs: integer("settle_delay_ms").notNull(),
  /** How long a new quote is held (runtime-settable for demos; SANDBOX_QUOTE_TTL_MS seeds it). */
  quoteTtlMs: integer("quote_ttl_ms").notNull().default(30_000),
  rateLimits: boolean("rate_limits").notNull(),
  rules: jsonb("rules").$type<unknown[]>().notNull(),
  envSeed: integer("env_seed").notNull(),
  envSettleDelayMs: integer("env_settle_delay_ms").notNull(),
  envQuoteTtlMs: integer("env_quote_ttl_ms").notNull().default(30_000),
  envRateLimits: boolean("env_rate_limits").notNull(),
  /** Orchestrations wait in PENDING for an approval at the service (sandbox admin approve/reject). */
  orchestrationApproval: boolean("orchestration_approval").notNull().default(false),
  /** A sandbox deposit's transfer stays PENDING this long (0: it completes in the request). */
  depositDelayMs: integer("deposit_delay_ms").notNull().default(0),
  /** Where events are POSTed, and the API-key header that authenticates the sandbox to the receiver. */
  webhookUrl: text("webhook_url"),
  webhookApiKeyHeader: text("webhook_api_key_header"),
  /** The receiver's key: sent, never answered back (only whether one is set). */
  webhookApiKey: text("webhook_api_key"),
  /** Events created from this time on are delivered (set when the URL is set). */
  webhookSince: at("webhook_since"),
  version: integer("version").notNull().default(1),
  updatedAt: at("updated_at").notNull(),
})

export type SandboxExecutionRow = typeof sandboxExecutions.$inferSelect
export type SandboxConversionRow = typeof sandboxConversions.$inferSelect
export type SandboxOrchestrationRow = typeof sandboxOrchestrations.$inferSelect
export type SandboxQuoteRow = typeof sandboxQuotes.$inferSelect
export type SandboxProfileRow = typeof sandboxProfiles.$inferSelect
