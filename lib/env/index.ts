import { type Env, type Purpose, parseEnv } from "./parse"

/**
 * The console's configuration, validated once. This folder is the only code that reads
 * process.env (this file): the variables, their rules, descriptions and defaults are in
 * ./vars.ts, the rules between them in ./parse.ts. A bad or partial configuration throws a
 * ConfigError naming each variable and what is wrong; next.config.mjs imports this module,
 * so a build or a server start with a bad environment stops there.
 */

export { ConfigError, type ConsoleUser, type DatabaseLimits, type Env, type Role, type SandboxSettings, configurationWarnings, parseEnv } from "./parse"
export { DEFAULT_DEMO_PASSWORD } from "./vars"

let cached: Env | undefined
let purpose: Purpose = "console"

/** The process's configuration, parsed on first use and kept. Server code only. */
export function env(): Env {
  if (typeof window !== "undefined") throw new Error("lib/env is server-only")
  cached ??= parseEnv(process.env, purpose)
  return cached
}

/**
 * The configuration of `npm run sandbox` (scripts/sandbox.ts), which serves the sandbox
 * alone: the console's own rules do not apply to it. Called first, before anything reads
 * env(), so that every later env() in the process is this one.
 */
export function standaloneSandboxEnv(): Env {
  if (cached && purpose !== "standalone-sandbox") throw new Error("standaloneSandboxEnv() must come before any env()")
  purpose = "standalone-sandbox"
  return env()
}

/**
 * Validates the configuration for a Next phase (next.config.mjs): while `next build` runs
 * nothing is served, so the mode may be left for start-up; every other phase gets the
 * same checks as the server.
 */
export function checkConfiguration(phase: string): void {
  parseEnv({ ...process.env, NEXT_PHASE: phase })
}

/** Database URL used by tests against a real Postgres, when set (docs/testing.md). */
export function testDatabaseUrl(): string | undefined {
  return process.env.TEST_DATABASE_URL || undefined
}
