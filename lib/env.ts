import { z } from "zod"
import { UPSTREAM_SCOPES } from "./schemas/scopes"

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
  UPSTREAM_BASE_URL: httpUrl,
  UPSTREAM_TOKEN_URL: httpUrl,
  UPSTREAM_CLIENT_ID: optionalText,
  UPSTREAM_CLIENT_SECRET: optionalText,
  UPSTREAM_SCOPES: optionalText,
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
  upstreamTimeoutMs: number
  /** Bearer token for GET /api/metrics; unset: no metrics endpoint (404). */
  metricsToken: string | undefined
  databaseUrl: string | undefined
  dataDir: string
  nextAuthSecret: string | undefined
  nextAuthUrl: string | undefined
  consoleUsers: ConsoleUser[]
  oidc: { issuer: string; clientId: string; clientSecret: string; roleClaim: string } | undefined
  demoPassword: string
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
  const mode = setUpstream.length === 0 ? "sandbox" : "upstream"
  if (setUpstream.length > 0 && setUpstream.length < 4) {
    for (const [name, value] of Object.entries(upstreamVars)) {
      if (value === undefined) {
        problems.push({ path: [name], message: "is required when any UPSTREAM_* variable is set (all four or none)" })
      }
    }
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

  const scopes = raw.UPSTREAM_SCOPES ? raw.UPSTREAM_SCOPES.split(/[\s,]+/).filter(Boolean) : [...UPSTREAM_SCOPES]
  const missingScopes = UPSTREAM_SCOPES.filter((s) => !scopes.includes(s))
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
        }
      : undefined,
    demoPassword: raw.DEMO_PASSWORD ?? "demo-password",
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

/** Database URL used by tests against a real Postgres, when set. */
export function testDatabaseUrl(): string | undefined {
  return process.env.TEST_DATABASE_URL || undefined
}
