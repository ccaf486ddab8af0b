// What the measurements run against, started and signed in: the console (a production
// build in sandbox mode, on PGlite or on PostgreSQL) and the standalone sandbox called
// directly (npm run sandbox).
import { randomBytes } from "node:crypto"
import path from "node:path"
import bcrypt from "bcryptjs"
import { type Bench, logLine } from "./context"
import { profilesSchema } from "./shapes"
import { expectOk, json, send } from "./http"
import { PROFILE, SCOPES, TRADER } from "./options"
import { rssAfterStart } from "./memory"
import { type Server, freePort, groupCpuMs, tempDir } from "./processes"
import { type ConsoleServer, repoRoot, sandboxToken, signIn, startConsole, startSandbox } from "./servers"

/** The sandbox's OAuth client, known to the bench (the same pair for every sandbox it starts). */
export interface BenchClient {
  clientId: string
  clientSecret: string
}

/** sandbox: the service embedded (PGlite); postgres: the same on PostgreSQL; upstream: PGlite, the service a standalone sandbox of its own process. */
export type ConsoleMode = "sandbox" | "postgres" | "upstream"

export interface ConsoleUnderTest extends ConsoleServer {
  mode: ConsoleMode
  /** How the rows name it: "sandbox mode", "Postgres mode", "sandbox mode, traced". */
  label: string
  dataDir: string
  logFile: string
  /** CPU time the server used to start (to its first 2xx from /api/health). */
  startCpuMs: number
  /** The process group's RSS once started and settled (before anyone signed in). */
  rssAfterStartMiB: number
  /** Session cookie of the signed-in trader. */
  cookie: string
  headers: Record<string, string>
  /** The Treasury profile's id in the console's sandbox. */
  profile: string
  /** API requests sent to it so far (the token-economy row quotes it). */
  apiRequests: number
}

const MODE_LABELS: Record<ConsoleMode, string> = { sandbox: "sandbox mode", postgres: "Postgres mode", upstream: "upstream mode, the sandbox apart" }

/** Upstream mode against a standalone sandbox at `origin`, with the bench's trader as its one user. */
function upstreamEnv(origin: string, client: BenchClient): Record<string, string> {
  return {
    UPSTREAM_BASE_URL: `${origin}/sandbox/v2`,
    UPSTREAM_TOKEN_URL: `${origin}/sandbox/oauth2/token`,
    UPSTREAM_CLIENT_ID: client.clientId,
    UPSTREAM_CLIENT_SECRET: client.clientSecret,
    NEXTAUTH_SECRET: randomBytes(32).toString("base64url"),
    CONSOLE_USERS: JSON.stringify([{ email: TRADER.email, role: "trader", passwordHash: bcrypt.hashSync(TRADER.password, 8) }]),
  }
}

/**
 * The console in sandbox mode: on PGlite in `dataDir` (a fresh folder unless given), or,
 * with `databaseUrl`, on that PostgreSQL database (Postgres mode). With `upstream` (a
 * standalone sandbox's origin), in upstream mode on PGlite instead: the service then runs in
 * a process of its own, so the console's process group's CPU is the console's alone.
 */
export async function startConsoleUnderTest(
  bench: Bench,
  client: BenchClient,
  options: { name?: string; label?: string; databaseUrl?: string; upstream?: string; dataDir?: string; quiet?: boolean; env?: Record<string, string> } = {},
): Promise<ConsoleUnderTest> {
  const port = await freePort(3500, 3599)
  const mode: ConsoleMode = options.databaseUrl ? "postgres" : options.upstream ? "upstream" : "sandbox"
  const name = options.name ?? (mode === "postgres" ? "console-postgres" : "console")
  const dataDir = options.dataDir ?? tempDir("console-bench-data-")
  // Profiling and debug logging only for the main sandbox-mode console and the push section's.
  const main = name === "console" || name === "console-push"
  const profileDir = main && bench.args.cpuProf ? path.join(repoRoot, "test-results", "bench-profiles") : undefined
  if (!options.quiet) logLine(`starting the console (${MODE_LABELS[mode]}, ${bench.distDir}) on ${port}`)
  const app = await startConsole({
    name,
    distDir: bench.distDir,
    port,
    dataDir,
    logDir: bench.logDir,
    env: {
      ...(options.upstream ? upstreamEnv(options.upstream, client) : { SANDBOX_CLIENT_ID: client.clientId, SANDBOX_CLIENT_SECRET: client.clientSecret }),
      ...(options.databaseUrl ? { DATABASE_URL: options.databaseUrl } : {}),
      ...(main && bench.args.explain ? { LOG_LEVEL: "debug" } : {}),
      ...options.env,
    },
    cpuProfileDir: profileDir,
  })
  const startCpuMs = groupCpuMs(app.server.pid)
  const rssAfterStartMiB = await rssAfterStart(app.server)
  const cookie = await signIn(app.origin, TRADER.email, TRADER.password)
  const headers = { cookie, origin: app.origin }
  const profiles = profilesSchema.parse(json(expectOk(await send(app.origin, { path: "/api/profiles", headers }), "console profiles")))
  const profile = profiles.items.find((p) => p.nickname === PROFILE)?.id ?? ""
  if (!profile) throw new Error(`the console's sandbox has no ${PROFILE} profile`)
  const label = options.label ?? MODE_LABELS[mode]
  return { ...app, mode, label, dataDir, logFile: app.server.logFile, startCpuMs, rssAfterStartMiB, cookie, headers, profile, apiRequests: 0 }
}

export interface DirectSandbox {
  origin: string
  /** Bearer token for every scope the console asks for. */
  headers: Record<string, string>
  profile: string
  /** Its process (its CPU is the service's, not the console's). */
  server: Server
}

export async function startDirectSandbox(bench: Bench, client: BenchClient): Promise<DirectSandbox> {
  const port = await freePort(4500, 4599)
  logLine(`starting the standalone sandbox (npm run sandbox) on ${port}`)
  const sandbox = await startSandbox({ port, dataDir: tempDir("console-bench-sandbox-"), logDir: bench.logDir, ...client })
  const token = await sandboxToken(sandbox.origin, client.clientId, client.clientSecret, SCOPES)
  const headers = { authorization: `Bearer ${token}` }
  const profiles = profilesSchema.parse(json(expectOk(await send(sandbox.origin, { path: "/sandbox/v2/profiles", headers }), "sandbox profiles")))
  const profile = profiles.items.find((p) => p.nickname === PROFILE)?.id ?? ""
  if (!profile) throw new Error(`the sandbox has no ${PROFILE} profile`)
  return { origin: sandbox.origin, headers, profile, server: sandbox.server }
}
