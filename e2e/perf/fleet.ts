// Console instances in upstream mode on a fresh Postgres database, in front of the
// standalone sandbox as the service, with one trader signed in: what the shutdown and
// hung-database sections start (each its own fleet). Everything listens on 127.0.0.1 and
// is stopped by the section, or at the benchmark's end.
import { randomBytes } from "node:crypto"
import bcrypt from "bcryptjs"
import pg from "pg"
import { z } from "zod"
import { EVENT_READER_SCOPES, UPSTREAM_SCOPES } from "../../lib/schemas/scopes"
import { expectOk, json, send } from "./http"
import { createBenchDatabase, scaleDatabaseServer } from "./postgres"
import { type Server, freePort, onCleanup, tempDir } from "./processes"
import { type ConsoleServer, sandboxToken, signIn, startConsole, startSandbox } from "./servers"
import { profilesSchema } from "./shapes"

const PROFILE = "Treasury"
const conversionsSchema = z.object({ items: z.array(z.object({ id: z.string(), ref_id: z.string().optional() })) })

export interface Fleet {
  databaseUrl: string
  sandbox: { origin: string; server: Server }
  /** A bearer token of the sandbox, to count its records (and list its events). */
  token: string
  apps: (ConsoleServer & { name: string })[]
  /** The signed-in trader's session, valid on every instance (one NEXTAUTH_SECRET). */
  cookie: string
  headersFor: (app: ConsoleServer) => Record<string, string>
  /** The Treasury profile's id at the sandbox. */
  profileId: string
  /** A connection of the bench's own to the instances' database (ended at cleanup). */
  db: pg.Client
  /** Stops the instances, then the sandbox. */
  stop(): Promise<void>
}

export async function startFleet(options: {
  /** Names the section's servers, logs and temporary folders. */
  label: string
  instances: number
  distDir: string
  logDir: string
  logLine: (text: string) => void
  sandboxEnv?: Record<string, string>
  consoleEnv?: Record<string, string>
}): Promise<Fleet> {
  const { label, logLine } = options
  const serverUrl = scaleDatabaseServer()
  if (!serverUrl) throw new Error(`${label}: set BENCH_DATABASE_URL (or TEST_DATABASE_URL) to a Postgres server the bench may create a database on`)
  const databaseUrl = await createBenchDatabase(serverUrl)
  const clientId = `bench-${label}-client`
  const clientSecret = randomBytes(24).toString("base64url")
  const sandbox = await startSandbox({
    port: await freePort(4700, 4799),
    dataDir: tempDir(`console-bench-${label}-sandbox-`),
    logDir: options.logDir,
    clientId,
    clientSecret,
    env: { SANDBOX_SETTLE_DELAY_MS: "0", ...options.sandboxEnv },
  })
  const token = await sandboxToken(sandbox.origin, clientId, clientSecret, [...UPSTREAM_SCOPES, ...EVENT_READER_SCOPES])
  const password = randomBytes(12).toString("base64url")
  const email = `${label}@example.com`
  const users = JSON.stringify([{ email, role: "trader", passwordHash: bcrypt.hashSync(password, 8) }])
  const nextAuthSecret = randomBytes(32).toString("base64url")
  const apps: Fleet["apps"] = []
  for (let i = 1; i <= options.instances; i++) {
    const name = `console-${label}-${i}`
    const port = await freePort(3700, 3799)
    logLine(`${label}: starting ${name} on ${port}`)
    const app = await startConsole({
      name,
      distDir: options.distDir,
      port,
      dataDir: tempDir(`console-bench-${label}-data-`),
      logDir: options.logDir,
      env: {
        DATABASE_URL: databaseUrl,
        UPSTREAM_BASE_URL: `${sandbox.origin}/sandbox/v2`,
        UPSTREAM_TOKEN_URL: `${sandbox.origin}/sandbox/oauth2/token`,
        UPSTREAM_CLIENT_ID: clientId,
        UPSTREAM_CLIENT_SECRET: clientSecret,
        NEXTAUTH_SECRET: nextAuthSecret,
        CONSOLE_USERS: users,
        LOG_LEVEL: "info",
        ...options.consoleEnv,
      },
    })
    apps.push({ ...app, name })
  }
  const cookie = await signIn(apps[0]!.origin, email, password)
  const headersFor = (app: ConsoleServer) => ({ cookie, origin: app.origin })
  const profiles = profilesSchema.parse(json(expectOk(await send(apps[0]!.origin, { path: "/api/profiles", headers: headersFor(apps[0]!) }), "profiles")))
  const profileId = profiles.items.find((p) => p.nickname === PROFILE)?.id
  if (!profileId) throw new Error(`${label}: the sandbox has no ${PROFILE} profile`)
  const db = new pg.Client({ connectionString: databaseUrl })
  await db.connect()
  onCleanup(() => db.end())
  return {
    databaseUrl,
    sandbox,
    token,
    apps,
    cookie,
    headersFor,
    profileId,
    db,
    async stop() {
      for (const app of apps) await app.server.stop(15_000)
      await sandbox.server.stop()
    },
  }
}

/** How many conversions the sandbox holds for each ref_id (exactly one each: nothing lost, nothing twice). */
export async function conversionsPerRef(fleet: Fleet, refs: readonly string[]): Promise<Map<string, number>> {
  const perRef = new Map<string, number>()
  for (const ref of refs) {
    const res = expectOk(
      await send(fleet.sandbox.origin, { path: `/sandbox/v2/conversion/stablecoins?ref_id=${encodeURIComponent(ref)}`, headers: { authorization: `Bearer ${fleet.token}` } }),
      "list conversions",
    )
    perRef.set(ref, conversionsSchema.parse(json(res)).items.filter((c) => c.ref_id === ref).length)
  }
  return perRef
}

/** A conversion create of 1.25 USD into USDP under `ref`, as a trader's browser sends it. */
export function conversionCreate(fleet: Fleet, app: ConsoleServer, ref: string) {
  return {
    method: "POST",
    path: "/api/conversions",
    headers: { ...fleet.headersFor(app), "content-type": "application/json" },
    body: JSON.stringify({ profile_id: fleet.profileId, amount: "1.25", source_asset: "USD", target_asset: "USDP", ref_id: ref }),
    timeoutMs: 30_000,
  }
}
