import { z } from "zod"
import { decimalPlaces, isUnsignedDecimalString, toDecimal } from "@/lib/money"
import { CONVERSIONS_APIS } from "@/lib/schemas/constants"
import { FIAT_ASSETS, SEED_MARKETS, STABLECOINS, assetDecimals, parseMarket } from "@/lib/schemas/assets"
import { idSchema, requiredOr } from "@/lib/schemas/common"
import { amountSchema } from "@/lib/schemas/money"
import { serviceSettingsReadShape, serviceSettingsShape } from "@/lib/schemas/sandbox-service-settings"

/**
 * The sandbox admin contract, the one place it is written: the bodies and answers of the
 * sandbox's own endpoints (fault rules and settings, deposits, market moves), the
 * console's /api/sandbox/* bodies and answers, their limits and asset lists. Client safe:
 * the sandbox, the upstream client, the console's routes and the admin page's forms all
 * import it.
 */

/**
 * Every asset a sandbox profile can hold: fiat, the best-known crypto, the stablecoins,
 * then the other bases of the markets (so every market can be traded).
 */
export const SANDBOX_ASSETS: readonly string[] = [
  ...new Set<string>([
    ...FIAT_ASSETS,
    "BTC",
    "ETH",
    "PAXG",
    ...STABLECOINS,
    ...SEED_MARKETS.map((m) => parseMarket(m)?.base).filter((a): a is string => a !== undefined),
  ]),
]

export const FAULT_OPERATIONS = [
  "token",
  "quotes",
  "create_execution",
  "create_conversion",
  "create_orchestration",
  "get",
  "list",
  "cancel",
  "deliver_webhook",
] as const
export type FaultOperation = (typeof FAULT_OPERATIONS)[number]

export const FAULT_KINDS = ["latency", "error", "rate_limit", "hang", "commit_then_fail", "fail_processing", "drop"] as const
export type FaultKind = (typeof FAULT_KINDS)[number]

export const FAULT_ERROR_STATUSES = [500, 502, 503, 504] as const
/**
 * Operations that store a new record, the only ones "commit then fail" applies to: a
 * cancel changes a record's status but stores none, so its failures are plain `error`s.
 */
export const COMMIT_OPERATIONS: readonly FaultOperation[] = ["create_execution", "create_conversion", "create_orchestration"]
/**
 * Operations whose records can end in a failure status, the only ones "fail_processing"
 * applies to: the orchestration is accepted (PROCESSING) and ends FAILED, its source
 * refunded, when it falls due.
 */
export const FAILING_OPERATIONS: readonly FaultOperation[] = ["create_orchestration"]
export const MAX_LATENCY_MS = 120_000
/**
 * Webhook deliveries take only these faults: `latency` delays a delivery, `error` fails it
 * (the receiver is not called; it is retried with backoff), `drop` loses it for good (never
 * sent, never retried, counted in the event's `undelivered_webhooks`).
 */
export const WEBHOOK_FAULTS: readonly FaultKind[] = ["latency", "error", "drop"]

export const faultRuleSchema = z
  .strictObject({
    operation: z.enum(FAULT_OPERATIONS, { error: `must be one of ${FAULT_OPERATIONS.join(", ")}` }),
    fault: z.enum(FAULT_KINDS, { error: `must be one of ${FAULT_KINDS.join(", ")}` }),
    rate: z.number({ error: "must be a number from 0 to 1" }).min(0, "must be from 0 to 1").max(1, "must be from 0 to 1"),
    status: z.union([z.number().int(), z.literal("drop")], { error: 'must be an HTTP status or "drop"' }).optional(),
    latency_ms: z
      .number({ error: "must be a whole number of milliseconds" })
      .int("must be a whole number of milliseconds")
      .min(0, "must not be negative")
      .max(MAX_LATENCY_MS, `at most ${MAX_LATENCY_MS}`)
      .optional(),
  })
  .superRefine((rule, ctx) => {
    const statuses = FAULT_ERROR_STATUSES.join(", ")
    const needsStatus = rule.fault === "error" || rule.fault === "commit_then_fail"
    if (needsStatus && rule.status === undefined) {
      ctx.addIssue({ code: "custom", path: ["status"], message: `is required for ${rule.fault} faults` })
    }
    if (!needsStatus && rule.status !== undefined) {
      ctx.addIssue({ code: "custom", path: ["status"], message: `is only for error and commit_then_fail faults` })
    }
    if (rule.fault === "error" && rule.status !== undefined && !FAULT_ERROR_STATUSES.some((s) => s === rule.status)) {
      ctx.addIssue({ code: "custom", path: ["status"], message: `must be one of ${statuses}` })
    }
    if (
      rule.fault === "commit_then_fail" &&
      rule.status !== undefined &&
      rule.status !== "drop" &&
      !FAULT_ERROR_STATUSES.some((s) => s === rule.status)
    ) {
      ctx.addIssue({ code: "custom", path: ["status"], message: `must be one of ${statuses} or "drop"` })
    }
    if (rule.fault === "commit_then_fail" && !COMMIT_OPERATIONS.includes(rule.operation)) {
      ctx.addIssue({
        code: "custom",
        path: ["operation"],
        message: `commit_then_fail applies to ${COMMIT_OPERATIONS.join(", ")} only`,
      })
    }
    if (rule.fault === "fail_processing" && !FAILING_OPERATIONS.includes(rule.operation)) {
      ctx.addIssue({
        code: "custom",
        path: ["operation"],
        message: `fail_processing applies to ${FAILING_OPERATIONS.join(", ")} only`,
      })
    }
    if (rule.operation === "deliver_webhook" && !WEBHOOK_FAULTS.includes(rule.fault)) {
      ctx.addIssue({ code: "custom", path: ["fault"], message: `deliver_webhook takes ${WEBHOOK_FAULTS.join(", ")} only` })
    }
    if (rule.fault === "drop" && rule.operation !== "deliver_webhook") {
      ctx.addIssue({ code: "custom", path: ["operation"], message: "drop applies to deliver_webhook only" })
    }
    if (rule.fault === "latency" && rule.latency_ms === undefined) {
      ctx.addIssue({ code: "custom", path: ["latency_ms"], message: "is required for latency faults" })
    }
    if (rule.fault !== "latency" && rule.latency_ms !== undefined) {
      ctx.addIssue({ code: "custom", path: ["latency_ms"], message: "is only for latency faults" })
    }
  })
export type FaultRule = z.infer<typeof faultRuleSchema>

/** Body of PUT /sandbox/admin/faults: fields left out keep their current value. */
export const faultSettingsUpdateSchema = z.strictObject({
  seed: z
    .number({ error: "must be a whole number" })
    .int("must be a whole number")
    .min(0, "must not be negative")
    .max(2_147_483_647, "at most 2147483647")
    .optional(),
  settle_delay_ms: z
    .number({ error: "must be a whole number of milliseconds" })
    .int("must be a whole number of milliseconds")
    .min(0, "must not be negative")
    .max(3_600_000, "at most 3600000")
    .optional(),
  quote_ttl_ms: z
    .number({ error: "must be a whole number of milliseconds" })
    .int("must be a whole number of milliseconds")
    .min(100, "at least 100")
    .max(3_600_000, "at most 3600000")
    .optional(),
  rate_limits: z.boolean({ error: "must be true or false" }).optional(),
  rules: z.array(faultRuleSchema, { error: "must be a list of rules" }).max(50, "at most 50 rules").optional(),
  ...serviceSettingsShape,
})
export type FaultSettingsUpdate = z.infer<typeof faultSettingsUpdateSchema>

/**
 * The answer of GET (and PUT) /sandbox/admin/faults, as the sandbox makes it: seed, settle
 * delay, rate limits and rules, plus the quote hold time (`quote_ttl_ms`), which applies
 * to quotes made after a change.
 */
export interface FaultSettings {
  seed: number
  settle_delay_ms: number
  quote_ttl_ms: number
  rate_limits: boolean
  rules: FaultRule[]
  /** Orchestrations wait in PENDING for the sandbox admin's approve or reject. */
  orchestration_approval: boolean
  /** How long a sandbox deposit's transfer stays PENDING (0: it completes at once). */
  deposit_delay_ms: number
  webhook_url: string | null
  webhook_api_key_header: string | null
  /** Whether a key is set: the key itself is never answered. */
  webhook_api_key_set: boolean
}

/**
 * That answer as its readers parse it (the upstream client, the console's
 * /api/sandbox/settings, the admin page): a rule as stored, without the write-time rules.
 */
export const sandboxSettingsSchema = z.object({
  seed: z.number().int().optional(),
  settle_delay_ms: z.number().int().min(0).optional(),
  /** Present when the sandbox can change the quote hold time at runtime. */
  quote_ttl_ms: z.number().int().min(0).optional(),
  rate_limits: z.boolean().optional(),
  ...serviceSettingsReadShape,
  rules: z.array(
    z.object({
      operation: z.enum(FAULT_OPERATIONS),
      fault: z.enum(FAULT_KINDS),
      rate: z.number().min(0).max(1),
      latency_ms: z.number().int().min(0).optional(),
      status: z.union([z.number().int(), z.literal("drop")]).optional(),
    }),
  ),
})
export type SandboxSettings = z.infer<typeof sandboxSettingsSchema>

/** A sandbox deposit never exceeds this, so balances stay inside numeric(38, 18). */
export const MAX_DEPOSIT = "1000000000"

/**
 * The networks the service documents for each crypto asset a sandbox profile can hold
 * (values of its CryptoNetwork enum); the first is the one the console deposits on.
 * Fiat takes no network.
 */
export const CRYPTO_NETWORKS: Readonly<Record<string, readonly string[]>> = {
  BTC: ["BITCOIN"],
  ETH: ["ETHEREUM"],
  PAXG: ["ETHEREUM"],
  USDP: ["ETHEREUM", "SOLANA"],
  PYUSD: ["ETHEREUM", "SOLANA", "ARBITRUM_ONE", "STELLAR"],
  USDG: ["ETHEREUM", "SOLANA", "INK", "XLAYER"],
  BCH: ["BITCOIN_CASH"],
  LTC: ["LITECOIN"],
  LINK: ["ETHEREUM"],
  MATIC: ["ETHEREUM", "POLYGON_POS"],
  AAVE: ["ETHEREUM"],
  UNI: ["ETHEREUM"],
}

/** The network a deposit of `asset` goes on when none is chosen; undefined for fiat. */
export function defaultNetwork(asset: string): string | undefined {
  return CRYPTO_NETWORKS[asset]?.[0]
}

/** Body of POST /sandbox/v2/sandbox/profiles/{profile_id}/deposit. */
export const sandboxDepositSchema = z
  .strictObject({
    asset: z.enum(SANDBOX_ASSETS as [string, ...string[]], { error: `must be one of ${SANDBOX_ASSETS.join(", ")}` }),
    // Exactly as sent, like every amount the service takes: " 10.00 " is refused, not trimmed.
    amount: z.string({ error: 'must be a decimal number written as text, like "12.34"' }),
    crypto_network: z.string().max(40, "at most 40 characters").optional(),
    crypto_address: z.string().max(200, "at most 200 characters").optional(),
  })
  .superRefine((body, ctx) => {
    const networks = CRYPTO_NETWORKS[body.asset]
    if (networks === undefined && body.crypto_network !== undefined) {
      ctx.addIssue({ code: "custom", path: ["crypto_network"], message: `must be left out for ${body.asset} (fiat)` })
    } else if (networks !== undefined && body.crypto_network === undefined) {
      ctx.addIssue({ code: "custom", path: ["crypto_network"], message: `is required for ${body.asset}: one of ${networks.join(", ")}` })
    } else if (networks !== undefined && body.crypto_network !== undefined && !networks.includes(body.crypto_network)) {
      ctx.addIssue({ code: "custom", path: ["crypto_network"], message: `must be one of ${networks.join(", ")} for ${body.asset}` })
    }
    const places = assetDecimals(body.asset)
    const issue = (message: string) => ctx.addIssue({ code: "custom", path: ["amount"], message })
    if (body.amount.trim() === "") return issue("is required")
    if (body.amount.trim() !== body.amount) return issue("must be a number like 12.34, without spaces around it")
    if (body.amount.startsWith("-")) return issue("must be more than 0")
    if (!isUnsignedDecimalString(body.amount)) return issue("must be a number like 12.34 (digits and at most one dot)")
    if (decimalPlaces(body.amount) > places) return issue(`at most ${places} decimals for ${body.asset}`)
    const amount = toDecimal(body.amount)
    if (amount.lte(0)) return issue("must be more than 0")
    if (amount.gt(toDecimal(MAX_DEPOSIT))) return issue(`at most ${MAX_DEPOSIT}`)
  })
export type SandboxDeposit = z.infer<typeof sandboxDepositSchema>

/** The answer of that deposit: the customer activity created for it. */
export const sandboxDepositResponseSchema = z.object({
  activity_id: z.string().optional(),
})
export type SandboxDepositResponse = z.infer<typeof sandboxDepositResponseSchema>

/** Assets whose price walks: EUR, SGD and the markets' bases. */
export const MOVABLE_ASSETS: readonly string[] = [
  ...FIAT_ASSETS.filter((a) => a !== "USD"),
  ...new Set(SEED_MARKETS.map((m) => parseMarket(m)?.base).filter((a): a is string => a !== undefined)),
]

/**
 * Body of POST /sandbox/admin/market-moves: jolts an asset's mid by a percentage, e.g.
 * to make executions of older quotes fail with 403 Rejected.
 */
export const marketMoveSchema = z.strictObject({
  asset: z.enum(MOVABLE_ASSETS as [string, ...string[]], { error: `must be one of ${MOVABLE_ASSETS.join(", ")}` }),
  change_percent: z
    .string({ error: 'must be a signed decimal written as text, like "-12.5"' })
    .regex(/^-?[0-9]*\.?[0-9]+$/, 'must be a signed decimal like "-12.5"')
    .refine((v) => toDecimal(v).gt(-90) && toDecimal(v).lte(1000), "must be more than -90 and at most 1000"),
})


/**
 * Body of the console's POST /api/sandbox/deposit, shared by the /sandbox form and the
 * route handler: the amount carries at most the asset's decimals (2 for fiat, 8 for the
 * rest), as the sandbox itself checks it.
 */
export const sandboxDepositRequestSchema = z
  .strictObject({
    profile_id: idSchema,
    asset: z.enum(SANDBOX_ASSETS as [string, ...string[]], { error: requiredOr(`must be one of ${SANDBOX_ASSETS.join(", ")}`) }),
    amount: z.string({ error: requiredOr('must be a decimal number written as text, like "12.34"') }).trim(),
  })
  .superRefine((body, ctx) => {
    const places = assetDecimals(body.asset)
    const checked = amountSchema(places).safeParse(body.amount)
    if (!checked.success) {
      const message = checked.error.issues[0]?.message ?? "is not a valid amount"
      ctx.addIssue({ code: "custom", path: ["amount"], message: message.startsWith("at most") ? `${message} for ${body.asset}` : message })
      return
    }
    if (toDecimal(checked.data).gt(toDecimal(MAX_DEPOSIT))) {
      ctx.addIssue({ code: "custom", path: ["amount"], message: `at most ${MAX_DEPOSIT}` })
    }
  })
export type SandboxDepositRequest = z.infer<typeof sandboxDepositRequestSchema>

/** The answer of the console's POST /api/sandbox/deposit. */
export const sandboxDepositAnswerSchema = z.object({
  activity_id: z.string().nullable(),
  profile_id: z.string(),
  asset: z.string(),
  amount: z.string(),
})
export type SandboxDepositAnswer = z.infer<typeof sandboxDepositAnswerSchema>

/** What the banner needs to know: is any fault rule able to fire right now? */
export interface SandboxFaultsStatus {
  faults_active: boolean
  /** Rules that can fire (rate above 0). */
  active_rules: number
  /** The operations those rules touch, without repeats. */
  operations: string[]
}

/** The status of a fault settings answer: a rule with rate 0 never fires, so it is not active. */
export function faultsStatusOf(settings: { rules: readonly { operation: string; rate: number }[] }): SandboxFaultsStatus {
  const active = settings.rules.filter((rule) => rule.rate > 0)
  return {
    faults_active: active.length > 0,
    active_rules: active.length,
    operations: [...new Set(active.map((rule) => rule.operation))],
  }
}

/** Body of the console's PUT /api/sandbox/conversions-api: the desk's conversion API for a demo. */
export const conversionsApiSwitchSchema = z.strictObject({
  api: z.enum(CONVERSIONS_APIS, { error: requiredOr(`must be ${CONVERSIONS_APIS.join(" or ")}`) }),
})

/** The answer of GET and PUT /api/sandbox/conversions-api: in use now, and what the configuration says. */
export const conversionsApiStateSchema = z.object({
  api: z.enum(CONVERSIONS_APIS),
  configured: z.enum(CONVERSIONS_APIS),
})
export type ConversionsApiState = z.infer<typeof conversionsApiStateSchema>
