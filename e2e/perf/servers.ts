// Building and starting what the benchmark measures: the console (production build, in
// sandbox mode or pointed at a service), the standalone sandbox (npm run sandbox), and
// signing a staff member in over HTTP.
import { execFileSync } from "node:child_process"
import { existsSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs"
import path from "node:path"
import { z } from "zod"
import { cookieHeader, cookiesOf, expectOk, json, send } from "./http"
import { type Server, run, startProcess, waitForHttp } from "./processes"

export const repoRoot = path.resolve(import.meta.dirname, "../..")
const nextBin = path.join(repoRoot, "node_modules/next/dist/bin/next")

/**
 * The Node.js flags `npm start` gives the server (package.json's start script): the bench
 * starts the console the way a deployment does, so its memory rows hold for `npm start`.
 */
export function startScriptNodeFlags(): string[] {
  const pkg = JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { scripts?: Record<string, string> }
  const start = pkg.scripts?.start ?? ""
  const match = /^node((?: --[\w-]+(?:=\S+)?)*) node_modules\/next\/dist\/bin\/next start$/.exec(start)
  if (!match) throw new Error(`package.json's start script is not "node [flags] node_modules/next/dist/bin/next start": ${start}`)
  return (match[1] ?? "").trim().split(" ").filter(Boolean)
}

/** Environment for child processes: the caller's, minus anything that would point the console elsewhere. */
export function baseEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" }
  // Empty values win over .env files (Next only fills variables that are not set), so a
  // developer's .env.local cannot send the benchmark to a real service or database.
  for (const name of [
    "UPSTREAM_BASE_URL",
    "UPSTREAM_TOKEN_URL",
    "UPSTREAM_CLIENT_ID",
    "UPSTREAM_CLIENT_SECRET",
    "UPSTREAM_SCOPES",
    "DATABASE_URL",
    "NEXTAUTH_SECRET",
    "CONSOLE_USERS",
    "OIDC_ISSUER",
    "OIDC_CLIENT_ID",
    "OIDC_CLIENT_SECRET",
    "DEMO_PASSWORD",
    "SANDBOX_RATE_LIMITS",
    "SANDBOX_SETTLE_DELAY_MS",
    "SANDBOX_QUOTE_TTL_MS",
    "SANDBOX_TOKEN_TTL_S",
    // Traced only where a measurement asks for it (--traced), never from the caller's shell.
    "OTEL_EXPORTER_OTLP_ENDPOINT",
  ]) {
    env[name] = ""
  }
  delete env.NODE_OPTIONS
  return { ...env, ...extra }
}

// ---------------------------------------------------------------- build

const BUILD_INPUTS = /^(app|components|lib|public|types)\/|^(proxy|instrumentation|next\.config)\.ts$|^(package-lock\.json|postcss\.config\.mjs|tsconfig\.json)$/

/** The newest modification time of the files a build reads (tracked or new, tests aside). */
function newestSource(): number {
  const files = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "-z"], {
    cwd: repoRoot,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  })
    .split("\0")
    .filter((f) => BUILD_INPUTS.test(f) && !/\.test\.tsx?$/.test(f))
  let newest = 0
  for (const file of files) {
    try {
      newest = Math.max(newest, statSync(path.join(repoRoot, file)).mtimeMs)
    } catch {
      // Deleted in the working tree.
    }
  }
  return newest
}

/** A production build in `distDir` newer than every source file, or null. */
export function freshBuild(distDir: string): { builtAt: Date } | null {
  const id = path.join(repoRoot, distDir, "BUILD_ID")
  if (!existsSync(id)) return null
  const builtAt = statSync(id).mtimeMs
  try {
    return builtAt >= newestSource() ? { builtAt: new Date(builtAt) } : null
  } catch {
    return null
  }
}

/** `next build` into `distDir`; tsconfig.json is put back if the build added `distDir`'s type folder to it. */
export async function buildConsole(distDir: string, logFile: string): Promise<void> {
  const tsconfig = path.join(repoRoot, "tsconfig.json")
  const before = readFileSync(tsconfig, "utf8")
  const { atime, mtime } = statSync(tsconfig)
  try {
    await run(process.execPath, [nextBin, "build"], {
      cwd: repoRoot,
      env: baseEnv({ NEXT_DIST_DIR: distDir, NODE_ENV: "production" }),
      logFile,
    })
  } catch (error) {
    const tail = readFileSync(logFile, "utf8").split("\n").slice(-40).join("\n")
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${tail}`)
  } finally {
    // Only our own addition is undone (another build or dev server may edit it meanwhile).
    const after = readFileSync(tsconfig, "utf8")
    if (after !== before && after.includes(`${distDir}/`) && !before.includes(`${distDir}/`)) {
      writeFileSync(tsconfig, before)
      // Its old time too: a rewrite that changed nothing must not make this build look older than its sources.
      utimesSync(tsconfig, atime, mtime)
    }
  }
}

// ---------------------------------------------------------------- servers

export interface ConsoleServer {
  origin: string
  server: Server
  /** From spawning `next start` to the first 2xx from /api/health. */
  startMs: number
}

export async function startConsole(options: {
  name: string
  distDir: string
  port: number
  dataDir: string
  logDir: string
  env: Record<string, string>
  cpuProfileDir?: string | undefined
}): Promise<ConsoleServer> {
  const origin = `http://127.0.0.1:${options.port}`
  const started = performance.now()
  const nodeArgs = [...startScriptNodeFlags(), ...(options.cpuProfileDir ? ["--cpu-prof", `--cpu-prof-dir=${options.cpuProfileDir}`] : [])]
  const server = startProcess({
    name: options.name,
    command: process.execPath,
    args: [...nodeArgs, nextBin, "start", "-p", String(options.port), "-H", "127.0.0.1"],
    cwd: repoRoot,
    env: baseEnv({
      NODE_ENV: "production",
      NEXT_DIST_DIR: options.distDir,
      DATA_DIR: options.dataDir,
      NEXTAUTH_URL: origin,
      LOG_LEVEL: "warn",
      // next start never guesses the mode; sandbox mode there needs an explicit demo password.
      ...(options.env.UPSTREAM_BASE_URL ? { CONSOLE_MODE: "upstream" } : { CONSOLE_MODE: "sandbox", DEMO_PASSWORD: "demo-password" }),
      ...options.env,
    }),
    logDir: options.logDir,
  })
  await waitForHttp(`${origin}/api/health`, server)
  return { origin, server, startMs: performance.now() - started }
}

/** `npm run sandbox` (scripts/sandbox.ts) on its own data folder. */
export async function startSandbox(options: {
  port: number
  dataDir: string
  logDir: string
  clientId: string
  clientSecret: string
  env?: Record<string, string>
}): Promise<{ origin: string; server: Server }> {
  const origin = `http://127.0.0.1:${options.port}`
  const npm = process.platform === "win32" ? "npm.cmd" : "npm"
  const server = startProcess({
    name: "sandbox",
    command: npm,
    args: ["run", "--silent", "sandbox"],
    cwd: repoRoot,
    env: baseEnv({
      DATA_DIR: options.dataDir,
      SANDBOX_PORT: String(options.port),
      SANDBOX_CLIENT_ID: options.clientId,
      SANDBOX_CLIENT_SECRET: options.clientSecret,
      LOG_LEVEL: "warn",
      ...options.env,
    }),
    logDir: options.logDir,
  })
  // Any answer from the token endpoint (400 without a body) means it listens and is ready.
  const deadline = Date.now() + 120_000
  for (;;) {
    if (server.exited) throw new Error(`the sandbox exited while starting:\n${server.logTail()}`)
    try {
      const res = await send(origin, { method: "POST", path: "/sandbox/oauth2/token", timeoutMs: 5000 })
      if (res.status > 0) break
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) throw new Error(`the sandbox did not start:\n${server.logTail()}`)
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  return { origin, server }
}

// ---------------------------------------------------------------- sessions and tokens

const csrfSchema = z.object({ csrfToken: z.string().min(1) })

/** Signs in with email and password; returns the Cookie header of the session. */
export async function signIn(origin: string, email: string, password: string): Promise<string> {
  const csrf = expectOk(await send(origin, { path: "/api/auth/csrf" }), "GET /api/auth/csrf")
  const jar = cookiesOf(csrf)
  const { csrfToken } = csrfSchema.parse(json(csrf))
  const res = await send(origin, {
    method: "POST",
    path: "/api/auth/callback/credentials",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: cookieHeader(jar), origin },
    body: new URLSearchParams({ csrfToken, email, password, json: "true" }).toString(),
  })
  const session = cookiesOf(res).get("next-auth.session-token")
  if (!session) throw new Error(`sign-in as ${email} failed: HTTP ${res.status} without a session cookie`)
  return `next-auth.session-token=${session}`
}

const tokenSchema = z.object({ access_token: z.string().min(1) })

/** A bearer token from the sandbox's OAuth endpoint (client credentials). */
export async function sandboxToken(origin: string, clientId: string, clientSecret: string, scopes: readonly string[]): Promise<string> {
  const res = await send(origin, {
    method: "POST",
    path: "/sandbox/oauth2/token",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "client_credentials", client_id: clientId, client_secret: clientSecret, scope: scopes.join(" ") }).toString(),
  })
  return tokenSchema.parse(json(expectOk(res, "POST /sandbox/oauth2/token"))).access_token
}
