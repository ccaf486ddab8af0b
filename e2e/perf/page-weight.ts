// First-load JavaScript of a page: the scripts its server-rendered HTML loads
// (<script src>, except noModule ones), each compressed with gzip level 9 as Next's own size report did, summed.
// The baseline is a minimal Next.js app (one page, one layout, no dependencies) built with
// the same next and react from node_modules, served by `next start`, measured the same way.
// It also serves the two references for the console's API: a bare route handler (the
// framework's floor) and a thin proxy to the standalone sandbox.
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs"
import path from "node:path"
import { gzipSync } from "node:zlib"
import { send } from "./http"
import { type Server, run, startProcess, tempDir, waitForHttp } from "./processes"
import { baseEnv, repoRoot } from "./servers"

export interface PageWeight {
  path: string
  /** HTTP status of the signed-in page; "missing" when it is not there (404). */
  status: number
  missing: boolean
  scripts: { src: string; bytes: number; gzipBytes: number }[]
  rawBytes: number
  gzipBytes: number
}

const SCRIPT_TAG = /<script\b[^>]*>/gi

function decodeHtml(value: string): string {
  return value.replace(/&amp;/g, "&").replace(/&quot;/g, '"').replace(/&#x27;|&#39;/g, "'")
}

export async function pageWeight(origin: string, pagePath: string, cookie?: string): Promise<PageWeight> {
  const res = await send(origin, { path: pagePath, headers: cookie ? { cookie } : {} })
  const empty = { path: pagePath, status: res.status, scripts: [], rawBytes: 0, gzipBytes: 0 }
  if (res.status === 404) return { ...empty, missing: true }
  if (res.status !== 200) {
    throw new Error(`GET ${pagePath}: HTTP ${res.status}${res.headers.location ? ` → ${res.headers.location}` : ""}`)
  }
  const html = res.body.toString("utf8")
  // noModule scripts (the legacy polyfills) are skipped by every browser that runs modules.
  const tags = [...html.matchAll(SCRIPT_TAG)].map((m) => m[0]).filter((tag) => !/\snomodule\b/i.test(tag))
  const sources = [...new Set(tags.map((tag) => decodeHtml(/\ssrc="([^"]+)"/i.exec(tag)?.[1] ?? "")).filter(Boolean))]
  const scripts = []
  for (const src of sources) {
    const file = await send(origin, { path: src })
    if (file.status !== 200) throw new Error(`GET ${src} (from ${pagePath}): HTTP ${file.status}`)
    scripts.push({ src, bytes: file.body.length, gzipBytes: gzipSync(file.body, { level: 9 }).length })
  }
  return {
    ...empty,
    missing: false,
    scripts,
    rawBytes: scripts.reduce((a, s) => a + s.bytes, 0),
    gzipBytes: scripts.reduce((a, s) => a + s.gzipBytes, 0),
  }
}

// ---------------------------------------------------------------- the minimal baseline app

// Built in a temporary folder outside the repository: a Next app inside it picks up the
// console's own instrumentation.ts and proxy.ts (Turbopack looks above the project). Its
// node_modules is a link to the console's, so next and react are the very same copies.

export function versionOf(pkg: string): string {
  const json = JSON.parse(readFileSync(path.join(repoRoot, "node_modules", pkg, "package.json"), "utf8")) as { version?: string }
  return json.version ?? "?"
}

const BASELINE_SOURCES: Record<string, string> = {
  "package.json": JSON.stringify({ private: true, name: "bench-baseline" }),
  // The link to node_modules points outside the project, so Turbopack's root is "/".
  "next.config.mjs": 'export default { turbopack: { root: "/" } }\n',
  "app/layout.js": [
    "export const metadata = { title: 'baseline' }",
    "export default function RootLayout({ children }) {",
    '  return <html lang="en"><body>{children}</body></html>',
    "}",
    "",
  ].join("\n"),
  "app/page.js": ["export default function Page() {", "  return <main><h1>Hello</h1></main>", "}", ""].join("\n"),
  // The floor of any console API request: a route handler that reads a header and answers JSON.
  "app/api/hello/route.js": [
    "export function GET(request) {",
    '  return Response.json({ hello: "world", cookie: request.headers.get("cookie")?.length ?? 0 })',
    "}",
    "",
  ].join("\n"),
  // The thin proxy a team would put in front of the service without this console: forwards
  // /api/proxy/<path> to the sandbox's API with a bearer token it fetches once and keeps
  // until a minute before it expires.
  "app/api/proxy/[...path]/route.js": [
    "const origin = process.env.BENCH_SANDBOX_ORIGIN",
    "let token = null",
    "async function bearer() {",
    "  if (token && Date.now() < token.expiresAt - 60_000) return token.value",
    "  const res = await fetch(`${origin}/sandbox/oauth2/token`, {",
    '    method: "POST",',
    '    headers: { "content-type": "application/x-www-form-urlencoded" },',
    "    body: new URLSearchParams({",
    '      grant_type: "client_credentials",',
    "      client_id: process.env.BENCH_CLIENT_ID,",
    "      client_secret: process.env.BENCH_CLIENT_SECRET,",
    "      scope: process.env.BENCH_SCOPES,",
    "    }),",
    "  })",
    "  if (!res.ok) throw new Error(`token: HTTP ${res.status}`)",
    "  const body = await res.json()",
    "  token = { value: body.access_token, expiresAt: Date.now() + body.expires_in * 1000 }",
    "  return token.value",
    "}",
    "async function forward(request, { params }) {",
    "  const { path } = await params",
    "  const search = new URL(request.url).search",
    '  const headers = { authorization: `Bearer ${await bearer()}`, accept: "application/json" }',
    '  const post = request.method === "POST"',
    '  if (post) headers["content-type"] = "application/json"',
    '  const res = await fetch(`${origin}/sandbox/v2/${path.join("/")}${search}`, {',
    "    method: request.method,",
    "    headers,",
    "    body: post ? await request.text() : undefined,",
    "  })",
    "  return new Response(await res.arrayBuffer(), {",
    "    status: res.status,",
    '    headers: { "content-type": res.headers.get("content-type") ?? "application/json" },',
    "  })",
    "}",
    "export { forward as GET, forward as POST }",
    "",
  ].join("\n"),
}

export interface BaselineBuild {
  dir: string
  next: string
  react: string
  buildSeconds: number
}

export async function buildBaseline(logDir: string): Promise<BaselineBuild> {
  const dir = tempDir("console-bench-baseline-")
  for (const [file, text] of Object.entries(BASELINE_SOURCES)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true })
    writeFileSync(path.join(dir, file), text)
  }
  symlinkSync(path.join(repoRoot, "node_modules"), path.join(dir, "node_modules"), "dir")
  const logFile = path.join(logDir, "baseline-build.log")
  const started = performance.now()
  await run(process.execPath, [path.join(repoRoot, "node_modules/next/dist/bin/next"), "build"], {
    cwd: dir,
    env: baseEnv({ NODE_ENV: "production" }),
    logFile,
  }).catch((error: unknown) => {
    const tail = existsSync(logFile) ? readFileSync(logFile, "utf8").split("\n").slice(-30).join("\n") : ""
    throw new Error(`baseline build failed: ${error instanceof Error ? error.message : String(error)}\n${tail}`)
  })
  return { dir, next: versionOf("next"), react: versionOf("react"), buildSeconds: (performance.now() - started) / 1000 }
}

/** Serves the baseline app (`env`: what its thin proxy forwards to); stopped by the caller or at the end. */
export async function startMinimalApp(build: BaselineBuild, port: number, logDir: string, env: Record<string, string>): Promise<{ origin: string; server: Server }> {
  const server: Server = startProcess({
    name: "baseline",
    command: process.execPath,
    args: [path.join(repoRoot, "node_modules/next/dist/bin/next"), "start", "-p", String(port), "-H", "127.0.0.1"],
    cwd: build.dir,
    env: baseEnv({ NODE_ENV: "production", ...env }),
    logDir,
  })
  const origin = `http://127.0.0.1:${port}`
  await waitForHttp(`${origin}/`, server)
  return { origin, server }
}
