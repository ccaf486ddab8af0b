import { describe, expect, it } from "vitest"
import { ConfigError, configurationWarnings, parseEnv } from "@/lib/env"
import { VARIABLES, variablesSchema } from "@/lib/env/vars"

const upstream = {
  UPSTREAM_BASE_URL: "https://api.sandbox.paxos.com/v2",
  UPSTREAM_TOKEN_URL: "https://oauth.sandbox.paxos.com/oauth2/token",
  UPSTREAM_CLIENT_ID: "client",
  UPSTREAM_CLIENT_SECRET: "very-secret-value",
  NEXTAUTH_SECRET: "x".repeat(40),
  NEXTAUTH_URL: "https://console.example.com",
  OIDC_ISSUER: "https://idp.example.com",
  OIDC_CLIENT_ID: "console",
  OIDC_CLIENT_SECRET: "oidc-secret",
}

function errorOf(source: Record<string, string | undefined>): string {
  try {
    parseEnv(source)
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError)
    return (error as Error).message
  }
  throw new Error("expected a ConfigError")
}

describe("configuration", () => {
  it("with nothing set, runs in sandbox mode with defaults", () => {
    const config = parseEnv({})
    expect(config.mode).toBe("sandbox")
    expect(config.upstream).toEqual({ kind: "sandbox" })
    expect(config.dataDir).toBe(".data")
    expect(config.demoPassword).toBe("demo-password")
    expect(config.upstreamTimeoutMs).toBe(10_000)
    expect(config.sandbox.settleDelayMs).toBe(2000)
    expect(config.sandbox.rateLimits).toBe(false)
  })

  it("treats empty variables (as copied from .env.example) as unset", () => {
    const blank = Object.fromEntries(
      ["UPSTREAM_BASE_URL", "DATABASE_URL", "LOG_LEVEL", "SANDBOX_PORT", "SANDBOX_RATE_LIMITS", "CONSOLE_USERS"].map((k) => [k, ""]),
    )
    expect(parseEnv(blank).mode).toBe("sandbox")
  })

  it("a partial upstream configuration names each missing variable", () => {
    const message = errorOf({ UPSTREAM_BASE_URL: "https://api.paxos.com/v2" })
    expect(message).toContain("UPSTREAM_TOKEN_URL: is required in upstream mode")
    expect(message).toContain("UPSTREAM_CLIENT_ID")
    expect(message).toContain("UPSTREAM_CLIENT_SECRET")
  })

  it("under next start the mode must be explicit: nothing set is a configuration error, never the sandbox", () => {
    const production = { NODE_ENV: "production", NEXTAUTH_SECRET: "x".repeat(40), CONSOLE_USERS: "" }
    expect(errorOf(production)).toContain("CONSOLE_MODE: is required under next start (NODE_ENV=production): sandbox or upstream")
    expect(errorOf({ ...production, CONSOLE_MODE: "demo" })).toContain("CONSOLE_MODE: must be sandbox or upstream")
    // next build needs no mode: nothing is served while it runs.
    expect(parseEnv({ NODE_ENV: "production", NEXT_PHASE: "phase-production-build" }).mode).toBe("sandbox")
    // Development and tests with nothing set stay sandbox (npm run dev, first command of the README).
    expect(parseEnv({ NODE_ENV: "development" })).toMatchObject({ mode: "sandbox", demoPasswordIsDefault: true })
  })

  it("sandbox mode under next start needs its own DEMO_PASSWORD of at least 12 characters, and never shows it", () => {
    const base = { NODE_ENV: "production", CONSOLE_MODE: "sandbox" }
    expect(errorOf(base)).toContain("DEMO_PASSWORD: is required in sandbox mode under next start (at least 12 characters)")
    expect(errorOf({ ...base, DEMO_PASSWORD: "short-pw" })).toContain("DEMO_PASSWORD: must be at least 12 characters under next start")
    const config = parseEnv({ ...base, DEMO_PASSWORD: "a-long-demo-password" })
    expect(config).toMatchObject({ mode: "sandbox", demoPassword: "a-long-demo-password", demoPasswordIsDefault: false })
  })

  it("CONSOLE_MODE=upstream without the four UPSTREAM_* variables names them; sandbox mode refuses them", () => {
    const message = errorOf({ CONSOLE_MODE: "upstream", NEXTAUTH_SECRET: "x".repeat(40), NEXTAUTH_URL: "https://c.example.com", CONSOLE_USERS: "" })
    for (const name of ["UPSTREAM_BASE_URL", "UPSTREAM_TOKEN_URL", "UPSTREAM_CLIENT_ID", "UPSTREAM_CLIENT_SECRET"]) {
      expect(message).toContain(`${name}: is required in upstream mode`)
    }
    expect(errorOf({ CONSOLE_MODE: "sandbox", UPSTREAM_BASE_URL: "https://api.paxos.com/v2" })).toContain(
      "UPSTREAM_BASE_URL: is not used in sandbox mode (CONSOLE_MODE=sandbox)",
    )
    expect(parseEnv({ ...upstream, CONSOLE_MODE: "upstream", NODE_ENV: "production" }).mode).toBe("upstream")
  })

  it("upstream mode requires the auth secret, the URL and a way to sign in", () => {
    const message = errorOf({
      UPSTREAM_BASE_URL: upstream.UPSTREAM_BASE_URL,
      UPSTREAM_TOKEN_URL: upstream.UPSTREAM_TOKEN_URL,
      UPSTREAM_CLIENT_ID: "c",
      UPSTREAM_CLIENT_SECRET: "s",
    })
    expect(message).toContain("NEXTAUTH_SECRET: is required outside sandbox mode")
    expect(message).toContain("NEXTAUTH_URL: is required outside sandbox mode")
    expect(message).toContain("CONSOLE_USERS")
  })

  it("a complete upstream configuration parses, and the secret is not in the base URL", () => {
    const config = parseEnv(upstream)
    expect(config.mode).toBe("upstream")
    expect(config.upstream).toMatchObject({ kind: "remote", baseUrl: "https://api.sandbox.paxos.com/v2" })
    expect(config.oidc?.roleClaim).toBe("console_role")
  })

  it("single sign-on refuses role lists and unverified emails unless told otherwise, with a warning when the email check is off", () => {
    const strict = parseEnv(upstream)
    expect(strict.oidc).toMatchObject({ roleList: "refuse", requireVerifiedEmail: true })
    expect(configurationWarnings(strict)).toEqual([])
    const lenient = parseEnv({ ...upstream, OIDC_ROLE_LIST: "highest", OIDC_REQUIRE_VERIFIED_EMAIL: "off" })
    expect(lenient.oidc).toMatchObject({ roleList: "highest", requireVerifiedEmail: false })
    expect(configurationWarnings(lenient).map((w) => w.variable)).toEqual(["OIDC_REQUIRE_VERIFIED_EMAIL"])
    expect(errorOf({ ...upstream, OIDC_ROLE_LIST: "first" })).toContain("OIDC_ROLE_LIST: must be refuse or highest")
    expect(errorOf({ ...upstream, OIDC_REQUIRE_VERIFIED_EMAIL: "maybe" })).toContain("OIDC_REQUIRE_VERIFIED_EMAIL: must be on or off")
  })

  it("step-up: webauthn outside sandbox mode (off only with a warning), off by default in sandbox mode", () => {
    expect(parseEnv(upstream).stepUp).toBe("webauthn")
    const off = parseEnv({ ...upstream, STEP_UP: "off" })
    expect(off.stepUp).toBe("off")
    expect(configurationWarnings(off).map((w) => w.variable)).toEqual(["STEP_UP"])
    expect(parseEnv({}).stepUp).toBe("off")
    const sandboxOn = parseEnv({ STEP_UP: "webauthn" })
    expect(sandboxOn.stepUp).toBe("webauthn")
    expect(configurationWarnings(parseEnv({ STEP_UP: "off" }))).toEqual([])
    expect(errorOf({ ...upstream, STEP_UP: "sms" })).toContain("STEP_UP: must be webauthn or off")
  })

  it("refuses a plain-http service or identity provider, except on this machine", () => {
    expect(errorOf({ ...upstream, UPSTREAM_TOKEN_URL: "http://oauth.example.com/oauth2/token" })).toContain(
      "UPSTREAM_TOKEN_URL: must be an https:// URL (http only for localhost)",
    )
    expect(errorOf({ ...upstream, OIDC_ISSUER: "http://idp.example.com" })).toContain("OIDC_ISSUER: must be an https:// URL")
    const local = parseEnv({ ...upstream, UPSTREAM_BASE_URL: "http://127.0.0.1:4010/sandbox/v2", UPSTREAM_TOKEN_URL: "http://localhost:4010/sandbox/oauth2/token" })
    expect(local.upstream).toMatchObject({ kind: "remote", baseUrl: "http://127.0.0.1:4010/sandbox/v2" })
  })

  it("METRICS_TOKEN: unset leaves the metrics endpoint off; a short one is refused", () => {
    expect(parseEnv({}).metricsToken).toBeUndefined()
    expect(parseEnv({ METRICS_TOKEN: "m".repeat(32) }).metricsToken).toBe("m".repeat(32))
    expect(errorOf({ METRICS_TOKEN: "short" })).toContain("METRICS_TOKEN: must be at least 24 characters")
  })

  it("UPSTREAM_CONVERSIONS_API picks the conversion API and the scopes asked for", () => {
    expect(parseEnv({}).conversionsApi).toBe("stablecoin-conversions")
    const sandbox = parseEnv({ UPSTREAM_CONVERSIONS_API: "orchestrations" })
    expect(sandbox.conversionsApi).toBe("orchestrations")
    // The sandbox grants every scope: a sandbox console asks for both pairs, so it can switch.
    expect(sandbox.upstreamScopes).toEqual(expect.arrayContaining(["orchestration:write_orchestration", "conversion:write_conversion_stablecoin"]))
    const real = parseEnv({ ...upstream, UPSTREAM_CONVERSIONS_API: "orchestrations" })
    expect(real.upstreamScopes).toContain("orchestration:read_orchestration")
    expect(real.upstreamScopes).not.toContain("conversion:read_conversion_stablecoin")
    expect(parseEnv(upstream).upstreamScopes).not.toContain("orchestration:read_orchestration")
    expect(errorOf({ UPSTREAM_CONVERSIONS_API: "conversions" })).toContain(
      "UPSTREAM_CONVERSIONS_API: must be stablecoin-conversions or orchestrations",
    )
    expect(
      errorOf({ ...upstream, UPSTREAM_CONVERSIONS_API: "orchestrations", UPSTREAM_SCOPES: "exchange:read_quote funding:read_profile" }),
    ).toContain("UPSTREAM_SCOPES: must include")
  })

  it("the event reader: EVENTS_POLL_MS (0 turns it off), its scope asked for, and WEBHOOK_API_KEY at least 32 characters", () => {
    expect(parseEnv({}).eventsPollMs).toBe(5000)
    expect(parseEnv(upstream).upstreamScopes).toContain("events:read_event")
    const listed = "exchange:read_quote exchange:write_quote_execution exchange:read_quote_execution conversion:write_conversion_stablecoin conversion:read_conversion_stablecoin funding:read_profile exchange:historical_prices transfer:read_transfer"
    // Scopes listed by hand must include the reader's while it reads, and need not when it is off.
    expect(errorOf({ ...upstream, UPSTREAM_SCOPES: listed })).toContain("UPSTREAM_SCOPES: must include events:read_event")
    expect(parseEnv({ ...upstream, UPSTREAM_SCOPES: listed, EVENTS_POLL_MS: "0" }).eventsPollMs).toBe(0)
    // The transfers pages read with their own scope, reader or not.
    expect(errorOf({ ...upstream, UPSTREAM_SCOPES: listed.replace(" transfer:read_transfer", ""), EVENTS_POLL_MS: "0" })).toContain("UPSTREAM_SCOPES: must include transfer:read_transfer")
    expect(parseEnv({}).webhook).toBeUndefined()
    expect(parseEnv({ WEBHOOK_API_KEY: "k".repeat(32), WEBHOOK_API_KEY_HEADER: "X-Paxos-Key" }).webhook).toEqual({ apiKey: "k".repeat(32), header: "x-paxos-key" })
    expect(errorOf({ WEBHOOK_API_KEY: "short" })).toContain("WEBHOOK_API_KEY: must be at least 32 characters")
    expect(errorOf({ WEBHOOK_API_KEY_HEADER: "x api key" })).toContain("WEBHOOK_API_KEY_HEADER: must be an HTTP header name")
  })

  it("EVENTS_STALE_MS: a minute by default, and never shorter than two of the reader's reads while it reads", () => {
    expect(parseEnv({}).eventsStaleMs).toBe(60_000)
    expect(parseEnv({ EVENTS_POLL_MS: "5000", EVENTS_STALE_MS: "10000" }).eventsStaleMs).toBe(10_000)
    expect(errorOf({ EVENTS_POLL_MS: "5000", EVENTS_STALE_MS: "9999" })).toContain("EVENTS_STALE_MS: must be at least twice EVENTS_POLL_MS (10000)")
    expect(parseEnv({ EVENTS_POLL_MS: "0", EVENTS_STALE_MS: "1000" }).eventsStaleMs).toBe(1000)
  })

  it("SESSION_IDLE_MINUTES: idle sign-out after 30 minutes by default, 5 minutes to 8 hours", () => {
    expect(parseEnv({}).sessionIdleS).toBe(30 * 60)
    expect(parseEnv({ SESSION_IDLE_MINUTES: "240" }).sessionIdleS).toBe(240 * 60)
    expect(errorOf({ SESSION_IDLE_MINUTES: "4" })).toContain("SESSION_IDLE_MINUTES: must be between 5 and 480")
    expect(errorOf({ SESSION_IDLE_MINUTES: "481" })).toContain("SESSION_IDLE_MINUTES: must be between 5 and 480")
  })

  it("RECONCILE_AFTER_MS: intents are left to their own request for 30 s by default, 1 s to 1 hour, with a warning below UPSTREAM_TIMEOUT_MS", () => {
    expect(parseEnv({}).reconcileAfterMs).toBe(30_000)
    expect(configurationWarnings(parseEnv({}))).toEqual([])
    const short = parseEnv({ RECONCILE_AFTER_MS: "3000" })
    expect(short.reconcileAfterMs).toBe(3000)
    expect(configurationWarnings(short).map((w) => w.variable)).toEqual(["RECONCILE_AFTER_MS"])
    expect(configurationWarnings(parseEnv({ RECONCILE_AFTER_MS: "3000", UPSTREAM_TIMEOUT_MS: "3000" }))).toEqual([])
    expect(errorOf({ RECONCILE_AFTER_MS: "999" })).toContain("RECONCILE_AFTER_MS: must be between 1000 and 3600000")
    expect(errorOf({ RECONCILE_AFTER_MS: "3600001" })).toContain("RECONCILE_AFTER_MS: must be between 1000 and 3600000")
  })

  it("rejects bad values with the variable and the rule", () => {
    expect(errorOf({ UPSTREAM_TIMEOUT_MS: "soon" })).toContain("UPSTREAM_TIMEOUT_MS: must be a whole number")
    expect(errorOf({ SANDBOX_RATE_LIMITS: "maybe" })).toContain("SANDBOX_RATE_LIMITS: must be on or off")
    expect(errorOf({ DATABASE_URL: "mysql://x" })).toContain("DATABASE_URL: must be a postgres:// URL")
    expect(errorOf({ NEXTAUTH_SECRET: "short" })).toContain("NEXTAUTH_SECRET: must be at least 32 characters")
    expect(errorOf({ LOG_LEVEL: "loud" })).toContain("LOG_LEVEL")
    expect(errorOf({ ...upstream, DEMO_PASSWORD: "x" })).toContain("DEMO_PASSWORD: is only allowed in sandbox mode")
  })

  it("validates CONSOLE_USERS entries", () => {
    expect(errorOf({ CONSOLE_USERS: "not json" })).toContain("CONSOLE_USERS: must be a JSON list")
    expect(errorOf({ CONSOLE_USERS: JSON.stringify([{ email: "a@b.co", role: "boss", passwordHash: "x" }]) })).toContain(
      "CONSOLE_USERS",
    )
    const hash = "$2b$10$U.tbyIgy9q07Jwu7.T8NAu2rAPYo60JcWGQP23Nlp6/g.KH4evx2O"
    const config = parseEnv({ CONSOLE_USERS: JSON.stringify([{ email: "Ops@Example.com", role: "trader", passwordHash: hash }]) })
    expect(config.consoleUsers).toEqual([{ email: "ops@example.com", role: "trader", passwordHash: hash }])
  })

  it("npm run sandbox is not held to the console's rules for next start, only to each variable's own", () => {
    // The bench starts it with the caller's NODE_ENV and a blank DEMO_PASSWORD.
    const standalone = parseEnv({ NODE_ENV: "production", DEMO_PASSWORD: "", SANDBOX_PORT: "4600" }, "standalone-sandbox")
    expect(standalone).toMatchObject({ mode: "sandbox", upstream: { kind: "sandbox" }, sandbox: { port: 4600 } })
    expect(parseEnv({ NODE_ENV: "production", CONSOLE_MODE: "sandbox" }, "standalone-sandbox").mode).toBe("sandbox")
    expect(() => parseEnv({ NODE_ENV: "production", SANDBOX_PORT: "99999" }, "standalone-sandbox")).toThrow("SANDBOX_PORT: must be between 1 and 65535")
    // The console in the same environment still refuses to guess.
    expect(errorOf({ NODE_ENV: "production", DEMO_PASSWORD: "" })).toContain("CONSOLE_MODE: is required under next start")
  })

  it("each documented default, written out, means the same as leaving the variable unset", () => {
    const unset = variablesSchema.parse({})
    const withDefaults = Object.entries(VARIABLES).filter(([, v]) => v.default !== undefined)
    expect(withDefaults.length).toBeGreaterThan(10)
    for (const [name, v] of withDefaults) {
      const written = variablesSchema.parse({ [name]: v.default })
      expect(written[name as keyof typeof written], name).toEqual(unset[name as keyof typeof unset])
    }
    expect(unset).toMatchObject({ SANDBOX_PORT: 4010, OIDC_REQUIRE_VERIFIED_EMAIL: true, SANDBOX_RATE_LIMITS: false, DATA_DIR: ".data" })
  })

  it("never puts a secret's value into the error message", () => {
    const message = errorOf({ ...upstream, UPSTREAM_TOKEN_URL: "not a url" })
    expect(message).not.toContain("very-secret-value")
    expect(message).toContain("UPSTREAM_TOKEN_URL")
  })
})
