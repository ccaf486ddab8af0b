import { z } from "zod"
import { CONVERSIONS_APIS, type ConversionsApi } from "./schemas/constants"
import { scopesFor } from "./schemas/scopes"

/**
 * The console's configuration, validated once. This is the only module that reads
 * process.env. A bad or partial configuration throws a ConfigError naming each variable
 * and what is wrong; next.config.mjs imports this module, so a build or a server start
 * with a bad environment stops there.
 */

export class ConfigError extends Error {
  override name = "ConfigError"
}

const ROLES = ["viewer", "support", "trader", "admin"] as const


const optionalText = z
  .string()
  .trim()
  .transform((v) => (v === "" ? undefined : v))
  .optional()

const httpUrl = z
  .string()
  .trim()
  .transform((v) => (v === "" ? undefined : v))
  .optional()
  .refine((v) => v === undefined || /^https?:\/\/[^\s]+$/.test(v), "must be an http(s) URL")
  .refine((v) => v === undefined || URL.canParse(v), "must be a valid URL")

function intVar(defaultValue: number, min: number, max: number) {
  return z
    .string()
    .trim()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === "") return defaultValue
      if (!/^\d+$/.test(v)) {
        ctx.addIssue({ code: "custom", message: "must be a whole number" })
        return z.NEVER
      }
      const n = Number(v)
      if (n < min || n > max) {
        ctx.addIssue({ code: "custom", message: `must be between ${min} and ${max}` })
        return z.NEVER
      }
      return n
    })
}

function onOff(defaultValue: boolean) {
  return z
    .string()
    .trim()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === "") return defaultValue
      if (/^(on|true|1|yes)$/i.test(v)) return true
      if (/^(off|false|0|no)$/i.test(v)) return false
      ctx.addIssue({ code: "custom", message: "must be on or off" })
      return z.NEVER
    })
}

const consoleUserSchema = z.strictObject({
  email: z.email().transform((v) => v.toLowerCase()),
  role: z.enum(ROLES),
  passwordHash: z.string().regex(/^\$2[aby]\$\d{2}\$.{53}$/, "passwordHash must be a bcrypt hash"),
})

const consoleUsers = z
  .string()
  .trim()
  .optional()
  .transform((v, ctx) => {
    if (v === undefined || v === "") return []
    let raw: unknown
    try {
      raw = JSON.parse(v)
    } catch {
      ctx.addIssue({ code: "custom", message: "must be a JSON list of {email, role, passwordHash}" })
      return z.NEVER
    }
    const parsed = z.array(consoleUserSchema).safeParse(raw)
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        ctx.addIssue({ code: "custom", message: `[${issue.path.join(".")}] ${issue.message}` })
      }
      return z.NEVER
    }
    return parsed.data
  })

const rawSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  /** Set by Next itself: `phase-production-build` while `next build` runs. */
  NEXT_PHASE: z.string().optional(),
  CONSOLE_MODE: z.preprocess(
    (v) => (typeof v === "string" ? (v.trim() === "" ? undefined : v.trim()) : v),
    z.enum(["sandbox", "upstream"], { error: "must be sandbox or upstream" }).optional(),
  ),
  UPSTREAM_BASE_URL: httpUrl,
  UPSTREAM_TOKEN_URL: httpUrl,
  UPSTREAM_CLIENT_ID: optionalText,
  UPSTREAM_CLIENT_SECRET: optionalText,
  UPSTREAM_SCOPES: optionalText,
  UPSTREAM_CONVERSIONS_API: z.preprocess(
    (v) => (typeof v === "string" && v.trim() !== "" ? v.trim() : undefined),
    z.enum(CONVERSIONS_APIS, { error: `must be ${CONVERSIONS_APIS.join(" or ")}` }).default("stablecoin-conversions"),
  ),
  UPSTREAM_TIMEOUT_MS: intVar(10_000, 100, 600_000),
  METRICS_TOKEN: optionalText.refine((v) => v === undefined || v.length >= 24, "must be at least 24 characters"),
  DATABASE_URL: optionalText.refine(
    (v) => v === undefined || /^postgres(ql)?:\/\//.test(v),
    "must be a postgres:// URL",
  ),
  DATA_DIR: optionalText,
  NEXTAUTH_SECRET: optionalText.refine((v) => v === undefined || v.length >= 32, "must be at least 32 characters"),
  NEXTAUTH_URL: httpUrl,
  CONSOLE_USERS: consoleUsers,
  OIDC_ISSUER: httpUrl,
  OIDC_CLIENT_ID: optionalText,
  OIDC_CLIENT_SECRET: optionalText,
  OIDC_ROLE_CLAIM: optionalText,
  OIDC_ROLE_LIST: z.preprocess(
    (v) => (typeof v === "string" && v.trim() !== "" ? v.trim().toLowerCase() : undefined),
    z.enum(["refuse", "highest"], { error: "must be refuse or highest" }).default("refuse"),
  ),
  OIDC_REQUIRE_VERIFIED_EMAIL: onOff(true),
  DEMO_PASSWORD: optionalText,
  LOG_LEVEL: z.preprocess(
    (v) => (v === "" ? undefined : v),
    z.enum(["debug", "info", "warn", "error", "silent"], { error: "must be debug, info, warn, error or silent" }).default("info"),
  ),
  SANDBOX_CLIENT_ID: optionalText,
  SANDBOX_CLIENT_SECRET: optionalText,
  SANDBOX_PORT: intVar(4010, 1, 65_535),
  SANDBOX_TOKEN_TTL_S: intVar(3599, 1, 86_400),
  SANDBOX_QUOTE_TTL_MS: intVar(30_000, 100, 3_600_000),
  SANDBOX_SETTLE_DELAY_MS: intVar(2000, 0, 3_600_000),
  SANDBOX_RATE_LIMITS: onOff(false),
  SANDBOX_MAX_EXECUTION_USD: intVar(50_000, 1, 1_000_000_000),
  SANDBOX_MAX_CONVERSION_USD: intVar(1_000_000, 1, 1_000_000_000),
})

/** The demo users' password in development when DEMO_PASSWORD is unset. Never under next start. */
export const DEFAULT_DEMO_PASSWORD = "demo-password"

export type Role = (typeof ROLES)[number]
export type ConsoleUser = z.infer<typeof consoleUserSchema>

export interface Env {
  nodeEnv: "development" | "production" | "test"
  /** sandbox: the embedded service with demo users; upstream: the real service. */
  mode: "sandbox" | "upstream"
  upstream:
    | { kind: "sandbox" }
    | { kind: "remote"; baseUrl: string; tokenUrl: string; clientId: string; clientSecret: string }
  upstreamScopes: string[]
  /**
   * The service's conversion API behind the conversions desk. In sandbox mode it is the
   * starting choice: an admin can switch it on the sandbox tools page for a demo.
   */
  conversionsApi: ConversionsApi
  upstreamTimeoutMs: number
  /** Bearer token for GET /api/metrics; unset: no metrics endpoint (404). */
  metricsToken: string | undefined
  databaseUrl: string | undefined
  dataDir: string
  nextAuthSecret: string | undefined
  nextAuthUrl: string | undefined
  consoleUsers: ConsoleUser[]
  oidc:
    | {
        issuer: string
        clientId: string
        clientSecret: string
        roleClaim: string
        /** A role claim with several roles: refused as ambiguous, or the highest one taken. */
        roleList: "refuse" | "highest"
        /** Refuse a sign-in whose email the provider has not verified (email_verified). */
        requireVerifiedEmail: boolean
      }
    | undefined
  demoPassword: string
  /** True when DEMO_PASSWORD is unset and the built-in development default is in use. */
  demoPasswordIsDefault: boolean
  logLevel: "debug" | "info" | "warn" | "error" | "silent"
  sandbox: {
    clientId: string | undefined
    clientSecret: string | undefined
    port: number
    tokenTtlS: number
    quoteTtlMs: number
    settleDelayMs: number
    rateLimits: boolean
    maxExecutionUsd: number
    maxConversionUsd: number
  }
}

function describe(issues: readonly { path: readonly PropertyKey[]; message: string }[]): string {
  return issues.map((i) => `  ${String(i.path[0] ?? "?")}: ${i.message}`).join("\n")
}

/** Validates a configuration source (process.env, or a plain object in tests). */
export function parseEnv(source: Record<string, string | undefined>): Env {
  const parsed = rawSchema.safeParse(source)
  if (!parsed.success) {
    throw new ConfigError(`Invalid configuration:\n${describe(parsed.error.issues)}`)
  }
  const raw = parsed.data
  const problems: { path: string[]; message: string }[] = []

  const upstreamVars = {
    UPSTREAM_BASE_URL: raw.UPSTREAM_BASE_URL,
    UPSTREAM_TOKEN_URL: raw.UPSTREAM_TOKEN_URL,
    UPSTREAM_CLIENT_ID: raw.UPSTREAM_CLIENT_ID,
    UPSTREAM_CLIENT_SECRET: raw.UPSTREAM_CLIENT_SECRET,
  }
  const setUpstream = Object.entries(upstreamVars).filter(([, v]) => v !== undefined)
  // Under `next start` the mode is never guessed: a production server that silently fell
  // back to the sandbox would hand its demo users the real audit trail. In development
  // and tests, nothing set still means sandbox (the README's first command).
  // `next build` runs with NODE_ENV=production too, but serves nothing: the mode is needed
  // when the built app starts, not when it is built.
  const production = raw.NODE_ENV === "production" && raw.NEXT_PHASE !== "phase-production-build"
  if (production && !raw.CONSOLE_MODE) {
    problems.push({ path: ["CONSOLE_MODE"], message: "is required under next start (NODE_ENV=production): sandbox or upstream" })
  }
  const mode = raw.CONSOLE_MODE ?? (setUpstream.length === 0 ? "sandbox" : "upstream")
  if (mode === "upstream" && setUpstream.length < 4) {
    const missing = Object.entries(upstreamVars).filter(([, v]) => v === undefined)
    for (const [name] of missing) {
      problems.push({
        path: [name],
        message: `is required in upstream mode (UPSTREAM_BASE_URL, UPSTREAM_TOKEN_URL, UPSTREAM_CLIENT_ID and UPSTREAM_CLIENT_SECRET)`,
      })
    }
  }
  if (mode === "sandbox" && raw.CONSOLE_MODE === "sandbox") {
    for (const [name] of setUpstream) problems.push({ path: [name], message: "is not used in sandbox mode (CONSOLE_MODE=sandbox); unset it or set CONSOLE_MODE=upstream" })
  }
  if (mode === "sandbox" && production && raw.CONSOLE_MODE) {
    if (!raw.DEMO_PASSWORD) problems.push({ path: ["DEMO_PASSWORD"], message: "is required in sandbox mode under next start (at least 12 characters)" })
    else if (raw.DEMO_PASSWORD.length < 12) problems.push({ path: ["DEMO_PASSWORD"], message: "must be at least 12 characters under next start" })
  }

  // The client secret and staff sign-ins must not cross the network in clear text.
  for (const name of ["UPSTREAM_BASE_URL", "UPSTREAM_TOKEN_URL", "OIDC_ISSUER"] as const) {
    const value = raw[name]
    if (value && !isHttpsOrLoopback(value)) problems.push({ path: [name], message: "must be an https:// URL (http only for localhost)" })
  }

  if (mode === "upstream") {
    if (!raw.NEXTAUTH_SECRET) problems.push({ path: ["NEXTAUTH_SECRET"], message: "is required outside sandbox mode" })
    if (!raw.NEXTAUTH_URL) problems.push({ path: ["NEXTAUTH_URL"], message: "is required outside sandbox mode" })
    if (raw.DEMO_PASSWORD) problems.push({ path: ["DEMO_PASSWORD"], message: "is only allowed in sandbox mode" })
    if (raw.CONSOLE_USERS.length === 0 && !raw.OIDC_ISSUER) {
      problems.push({ path: ["CONSOLE_USERS"], message: "or OIDC_* is required outside sandbox mode (nobody could sign in)" })
    }
  }

  const oidcVars = {
    OIDC_ISSUER: raw.OIDC_ISSUER,
    OIDC_CLIENT_ID: raw.OIDC_CLIENT_ID,
    OIDC_CLIENT_SECRET: raw.OIDC_CLIENT_SECRET,
  }
  const setOidc = Object.values(oidcVars).filter((v) => v !== undefined).length
  if (setOidc > 0 && setOidc < 3) {
    for (const [name, value] of Object.entries(oidcVars)) {
      if (value === undefined) problems.push({ path: [name], message: "is required when any OIDC_* variable is set" })
    }
  }

  // The embedded sandbox grants every scope, so a sandbox console can switch API; a real
  // client asks only for what its conversion API needs.
  const neededScopes = scopesFor(mode === "sandbox" ? "both" : raw.UPSTREAM_CONVERSIONS_API)
  const scopes = raw.UPSTREAM_SCOPES ? raw.UPSTREAM_SCOPES.split(/[\s,]+/).filter(Boolean) : neededScopes
  const missingScopes = scopesFor(raw.UPSTREAM_CONVERSIONS_API).filter((s) => !scopes.includes(s))
  if (raw.UPSTREAM_SCOPES && missingScopes.length > 0) {
    problems.push({ path: ["UPSTREAM_SCOPES"], message: `must include ${missingScopes.join(", ")}` })
  }

  if (problems.length > 0) throw new ConfigError(`Invalid configuration:\n${describe(problems)}`)

  return {
    nodeEnv: raw.NODE_ENV,
    mode,
    upstream:
      mode === "sandbox"
        ? { kind: "sandbox" }
        : {
            kind: "remote",
            baseUrl: raw.UPSTREAM_BASE_URL!.replace(/\/+$/, ""),
            tokenUrl: raw.UPSTREAM_TOKEN_URL!,
            clientId: raw.UPSTREAM_CLIENT_ID!,
            clientSecret: raw.UPSTREAM_CLIENT_SECRET!,
          },
    upstreamScopes: scopes,
    conversionsApi: raw.UPSTREAM_CONVERSIONS_API,
    upstreamTimeoutMs: raw.UPSTREAM_TIMEOUT_MS,
    metricsToken: raw.METRICS_TOKEN,
    databaseUrl: raw.DATABASE_URL,
    dataDir: raw.DATA_DIR ?? ".data",
    nextAuthSecret: raw.NEXTAUTH_SECRET,
    nextAuthUrl: raw.NEXTAUTH_URL,
    consoleUsers: raw.CONSOLE_USERS,
    oidc: raw.OIDC_ISSUER
      ? {
          issuer: raw.OIDC_ISSUER,
          clientId: raw.OIDC_CLIENT_ID!,
          clientSecret: raw.OIDC_CLIENT_SECRET!,
          roleClaim: raw.OIDC_ROLE_CLAIM ?? "console_role",
          roleList: raw.OIDC_ROLE_LIST,
          requireVerifiedEmail: raw.OIDC_REQUIRE_VERIFIED_EMAIL,
        }
      : undefined,
    demoPassword: raw.DEMO_PASSWORD ?? DEFAULT_DEMO_PASSWORD,
    demoPasswordIsDefault: raw.DEMO_PASSWORD === undefined,
    logLevel: raw.LOG_LEVEL,
    sandbox: {
      clientId: raw.SANDBOX_CLIENT_ID,
      clientSecret: raw.SANDBOX_CLIENT_SECRET,
      port: raw.SANDBOX_PORT,
      tokenTtlS: raw.SANDBOX_TOKEN_TTL_S,
      quoteTtlMs: raw.SANDBOX_QUOTE_TTL_MS,
      settleDelayMs: raw.SANDBOX_SETTLE_DELAY_MS,
      rateLimits: raw.SANDBOX_RATE_LIMITS,
      maxExecutionUsd: raw.SANDBOX_MAX_EXECUTION_USD,
      maxConversionUsd: raw.SANDBOX_MAX_CONVERSION_USD,
    },
  }
}

/** Settings that are allowed but weaken the console, for a warning at start-up. */
export function configurationWarnings(config: Env): { variable: string; warning: string }[] {
  const warnings: { variable: string; warning: string }[] = []
  if (config.oidc && !config.oidc.requireVerifiedEmail) {
    warnings.push({
      variable: "OIDC_REQUIRE_VERIFIED_EMAIL",
      warning: "is off: single sign-on accepts an email the provider has not verified; only for providers that never send email_verified",
    })
  }
  return warnings
}

function isHttpsOrLoopback(value: string): boolean {
  const url = new URL(value)
  if (url.protocol === "https:") return true
  return ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname)
}

let cached: Env | undefined

/** The process's configuration, parsed on first use and kept. Server code only. */
export function env(): Env {
  if (typeof window !== "undefined") throw new Error("lib/env is server-only")
  cached ??= parseEnv(process.env)
  return cached
}

/**
 * Validates the configuration for a Next phase (next.config.mjs): while `next build` runs
 * nothing is served, so the mode may be left for start-up; every other phase gets the
 * same checks as the server.
 */
export function checkConfiguration(phase: string): void {
  parseEnv({ ...process.env, NEXT_PHASE: phase })
}

/** Database URL used by tests against a real Postgres, when set. */
export function testDatabaseUrl(): string | undefined {
  return process.env.TEST_DATABASE_URL || undefined
}
