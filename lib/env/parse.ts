import { type Role } from "../auth/roles"
import { type ConversionsApi } from "../schemas/constants"
import { EVENT_READER_SCOPES, scopesFor } from "../schemas/scopes"
import { type ConsoleUser, DEFAULT_DEMO_PASSWORD, type Variables, variablesSchema } from "./vars"

export class ConfigError extends Error {
  override name = "ConfigError"
}

export type { ConsoleUser, Role }

/** How the embedded sandbox behaves (lib/sandbox's SandboxConfig extends it). */
export interface SandboxSettings {
  tokenTtlS: number
  quoteTtlMs: number
  settleDelayMs: number
  rateLimits: boolean
  maxExecutionUsd: number
  maxConversionUsd: number
}

/** How long Postgres work may take: waiting for a connection, running a statement, waiting for a lock. */
export interface DatabaseLimits {
  poolMax: number
  connectTimeoutMs: number
  statementTimeoutMs: number
  lockTimeoutMs: number
  /** The longest a bounded transaction (lib/db/bounded.ts) may take as a whole. */
  transactionTimeoutMs: number
}

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
  /** The reconciler leaves an intent untouched for less than this to its own request. */
  reconcileAfterMs: number
  /** The event reader's pace; 0: no reader. */
  eventsPollMs: number
  /** Without a successful read of the events this long, the reader is behind (health: degraded). */
  eventsStaleMs: number
  /** The webhook receiver's key and header; unset key: no receiver (404). */
  webhook: { apiKey: string; header: string } | undefined
  /** Notification email (SMTP_URL, MAIL_FROM); unset: no email. */
  smtp: { url: string; from: string } | undefined
  /** The notification delivery worker's pace. */
  notifyPollMs: number
  /** Idle sign-out: a session ends this long after its last request (SESSION_IDLE_MINUTES). */
  sessionIdleS: number
  /** Bearer token for GET /api/metrics; unset: no metrics endpoint (404). */
  metricsToken: string | undefined
  databaseUrl: string | undefined
  /** Bounds of every Postgres connection (PGlite, in process, has none). */
  databaseLimits: DatabaseLimits
  dataDir: string
  nextAuthSecret: string | undefined
  nextAuthUrl: string | undefined
  /** Approve and reject need a passkey assertion (webauthn) or not (off). */
  stepUp: "webauthn" | "off"
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
  /** On SIGTERM, how long writes in flight are waited for. */
  shutdownTimeoutMs: number
  /** OpenTelemetry: where traces go (OTLP/HTTP); unset, none are made. */
  tracing: { endpoint: string; serviceName: string } | undefined
  sandbox: SandboxSettings & { clientId: string | undefined; clientSecret: string | undefined; port: number }
}

/**
 * Which process the configuration is for. The console (next dev, next start, its scripts)
 * gets every rule; the standalone sandbox (npm run sandbox) serves no staff and calls no
 * service, so the console's rules (a mode and a demo password under next start, the
 * upstream and sign-in variables) are not its business, whatever NODE_ENV says.
 */
export type Purpose = "console" | "standalone-sandbox"

type Problem = { path: readonly PropertyKey[]; message: string }

function describe(issues: readonly Problem[]): string {
  return issues.map((i) => `  ${String(i.path[0] ?? "?")}: ${i.message}`).join("\n")
}

function isHttpsOrLoopback(value: string): boolean {
  const url = new URL(value)
  if (url.protocol === "https:") return true
  return ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname)
}

const UPSTREAM_VARS = ["UPSTREAM_BASE_URL", "UPSTREAM_TOKEN_URL", "UPSTREAM_CLIENT_ID", "UPSTREAM_CLIENT_SECRET"] as const
const OIDC_VARS = ["OIDC_ISSUER", "OIDC_CLIENT_ID", "OIDC_CLIENT_SECRET"] as const

/** The mode, and what is wrong between the variables, for the console. */
function consoleRules(raw: Variables): { mode: Env["mode"]; problems: Problem[] } {
  const problems: Problem[] = []
  if (raw.EVENTS_POLL_MS > 0 && raw.EVENTS_STALE_MS < 2 * raw.EVENTS_POLL_MS)
    problems.push({ path: ["EVENTS_STALE_MS"], message: `must be at least twice EVENTS_POLL_MS (${2 * raw.EVENTS_POLL_MS})` })
  const setUpstream = UPSTREAM_VARS.filter((name) => raw[name] !== undefined)
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
  if (mode === "upstream") {
    for (const name of UPSTREAM_VARS.filter((n) => raw[n] === undefined)) {
      problems.push({
        path: [name],
        message: `is required in upstream mode (UPSTREAM_BASE_URL, UPSTREAM_TOKEN_URL, UPSTREAM_CLIENT_ID and UPSTREAM_CLIENT_SECRET)`,
      })
    }
  }
  if (mode === "sandbox" && raw.CONSOLE_MODE === "sandbox") {
    for (const name of setUpstream) problems.push({ path: [name], message: "is not used in sandbox mode (CONSOLE_MODE=sandbox); unset it or set CONSOLE_MODE=upstream" })
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

  if (raw.SMTP_URL && !raw.MAIL_FROM) problems.push({ path: ["MAIL_FROM"], message: "is required when SMTP_URL is set" })

  if (mode === "upstream") {
    if (!raw.NEXTAUTH_SECRET) problems.push({ path: ["NEXTAUTH_SECRET"], message: "is required outside sandbox mode" })
    if (!raw.NEXTAUTH_URL) problems.push({ path: ["NEXTAUTH_URL"], message: "is required outside sandbox mode" })
    if (raw.DEMO_PASSWORD) problems.push({ path: ["DEMO_PASSWORD"], message: "is only allowed in sandbox mode" })
    if (raw.CONSOLE_USERS.length === 0 && !raw.OIDC_ISSUER) {
      problems.push({ path: ["CONSOLE_USERS"], message: "or OIDC_* is required outside sandbox mode (nobody could sign in)" })
    }
  }

  const setOidc = OIDC_VARS.filter((name) => raw[name] !== undefined).length
  if (setOidc > 0 && setOidc < OIDC_VARS.length) {
    for (const name of OIDC_VARS) {
      if (raw[name] === undefined) problems.push({ path: [name], message: "is required when any OIDC_* variable is set" })
    }
  }

  // The event reader's scope only while it reads (EVENTS_POLL_MS=0 turns it off).
  const needed = scopesFor(raw.UPSTREAM_CONVERSIONS_API).filter((s) => raw.EVENTS_POLL_MS > 0 || !(EVENT_READER_SCOPES as readonly string[]).includes(s))
  const missingScopes = needed.filter((s) => !scopesOf(raw, mode).includes(s))
  if (raw.UPSTREAM_SCOPES && missingScopes.length > 0) {
    problems.push({ path: ["UPSTREAM_SCOPES"], message: `must include ${missingScopes.join(", ")}` })
  }
  return { mode, problems }
}

/**
 * The scopes to ask for. The embedded sandbox grants every scope, so a sandbox console can
 * switch API; a real client asks only for what its conversion API needs.
 */
function scopesOf(raw: Variables, mode: Env["mode"]): string[] {
  if (raw.UPSTREAM_SCOPES) return raw.UPSTREAM_SCOPES.split(/[\s,]+/).filter(Boolean)
  return scopesFor(mode === "sandbox" ? "both" : raw.UPSTREAM_CONVERSIONS_API)
}

/** Validates a configuration source (process.env, or a plain object in tests). */
export function parseEnv(source: Record<string, string | undefined>, purpose: Purpose = "console"): Env {
  const parsed = variablesSchema.safeParse(source)
  if (!parsed.success) throw new ConfigError(`Invalid configuration:\n${describe(parsed.error.issues)}`)
  const raw = parsed.data
  const { mode, problems } = purpose === "console" ? consoleRules(raw) : { mode: "sandbox" as const, problems: [] }
  if (problems.length > 0) throw new ConfigError(`Invalid configuration:\n${describe(problems)}`)

  const { UPSTREAM_BASE_URL: baseUrl, UPSTREAM_TOKEN_URL: tokenUrl, UPSTREAM_CLIENT_ID: clientId, UPSTREAM_CLIENT_SECRET: clientSecret } = raw
  const { OIDC_ISSUER: issuer, OIDC_CLIENT_ID: oidcClientId, OIDC_CLIENT_SECRET: oidcClientSecret } = raw
  return {
    nodeEnv: raw.NODE_ENV,
    mode,
    upstream:
      mode === "upstream" && baseUrl && tokenUrl && clientId && clientSecret
        ? { kind: "remote", baseUrl: baseUrl.replace(/\/+$/, ""), tokenUrl, clientId, clientSecret }
        : { kind: "sandbox" },
    upstreamScopes: scopesOf(raw, mode),
    conversionsApi: raw.UPSTREAM_CONVERSIONS_API,
    upstreamTimeoutMs: raw.UPSTREAM_TIMEOUT_MS,
    reconcileAfterMs: raw.RECONCILE_AFTER_MS,
    eventsPollMs: raw.EVENTS_POLL_MS,
    eventsStaleMs: raw.EVENTS_STALE_MS,
    webhook: raw.WEBHOOK_API_KEY ? { apiKey: raw.WEBHOOK_API_KEY, header: raw.WEBHOOK_API_KEY_HEADER.toLowerCase() } : undefined,
    smtp: raw.SMTP_URL && raw.MAIL_FROM ? { url: raw.SMTP_URL, from: raw.MAIL_FROM } : undefined,
    notifyPollMs: raw.NOTIFY_POLL_MS,
    sessionIdleS: raw.SESSION_IDLE_MINUTES * 60,
    metricsToken: raw.METRICS_TOKEN,
    databaseUrl: raw.DATABASE_URL,
    databaseLimits: {
      poolMax: raw.DATABASE_POOL_MAX,
      connectTimeoutMs: raw.DATABASE_CONNECT_TIMEOUT_MS,
      statementTimeoutMs: raw.DATABASE_STATEMENT_TIMEOUT_MS,
      lockTimeoutMs: raw.DATABASE_LOCK_TIMEOUT_MS,
      transactionTimeoutMs: raw.DATABASE_TRANSACTION_TIMEOUT_MS,
    },
    dataDir: raw.DATA_DIR,
    nextAuthSecret: raw.NEXTAUTH_SECRET,
    nextAuthUrl: raw.NEXTAUTH_URL,
    stepUp: raw.STEP_UP ?? (mode === "sandbox" ? "off" : "webauthn"),
    consoleUsers: raw.CONSOLE_USERS,
    oidc:
      purpose === "console" && issuer && oidcClientId && oidcClientSecret
        ? {
            issuer,
            clientId: oidcClientId,
            clientSecret: oidcClientSecret,
            roleClaim: raw.OIDC_ROLE_CLAIM,
            roleList: raw.OIDC_ROLE_LIST,
            requireVerifiedEmail: raw.OIDC_REQUIRE_VERIFIED_EMAIL,
          }
        : undefined,
    demoPassword: raw.DEMO_PASSWORD ?? DEFAULT_DEMO_PASSWORD,
    demoPasswordIsDefault: raw.DEMO_PASSWORD === undefined,
    logLevel: raw.LOG_LEVEL,
    shutdownTimeoutMs: raw.SHUTDOWN_TIMEOUT_MS,
    tracing: raw.OTEL_EXPORTER_OTLP_ENDPOINT ? { endpoint: raw.OTEL_EXPORTER_OTLP_ENDPOINT, serviceName: raw.OTEL_SERVICE_NAME } : undefined,
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
  if (config.reconcileAfterMs < config.upstreamTimeoutMs) {
    warnings.push({
      variable: "RECONCILE_AFTER_MS",
      warning: "is shorter than UPSTREAM_TIMEOUT_MS: the reconciler may ask about a create still waiting for the service's answer (sent again with the same ref_id, it is still placed once)",
    })
  }
  if (config.mode !== "sandbox" && config.stepUp === "off") {
    warnings.push({ variable: "STEP_UP", warning: "is off outside sandbox mode: a session cookie alone approves and rejects requests that move money" })
  }
  return warnings
}
