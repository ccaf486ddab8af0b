import { readdirSync, mkdtempSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { encode } from "next-auth/jwt"
import { NextRequest } from "next/server"
import { afterAll, describe, expect, it } from "vitest"

// The database refuses connections (nothing listens on its port): every console route
// answers 503 database_unavailable with Retry-After, never a 500; liveness still answers.
const dataDir = mkdtempSync(path.join(tmpdir(), "console-db-refused-"))
const SECRET = "db-refused-tests-secret-0123456789-abcdefghijk"
process.env.DATA_DIR = dataDir
process.env.NEXTAUTH_SECRET = SECRET
process.env.DATABASE_URL = "postgres://console@127.0.0.1:1/console"
process.env.DATABASE_CONNECT_TIMEOUT_MS = "500"
process.env.LOG_LEVEL = "silent"
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE"
type Handler = (req: NextRequest, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>
const APP_API = path.resolve(import.meta.dirname)
/** Routes that answer without a session: next-auth's own, the health checks (below), metrics and the service's webhook (no database: 404 when unconfigured). */
const OUTSIDE = new Set(["/api/auth/[...nextauth]", "/api/health", "/api/health/live", "/api/health/ready", "/api/metrics", "/api/webhooks/service"])

function walk(dir = APP_API): { route: string; file: string }[] {
  const found: { route: string; file: string }[] = []
  for (const entry of readdirSync(dir)) {
    const full = path.join(dir, entry)
    if (statSync(full).isDirectory()) found.push(...walk(full))
    else if (entry === "route.ts") found.push({ route: "/api/" + path.relative(APP_API, dir).split(path.sep).join("/"), file: full })
  }
  return found
}

/** A signed cookie of a session the database would be asked about (it cannot be). */
async function adminCookie(): Promise<string> {
  const email = "admin@example.com"
  const token = await encode({
    token: { email, role: "admin", sub: email, sid: "5f0c9a64-7d0e-4a3b-9c55-0b1d2e3f4a5b", signedInAt: Math.floor(Date.now() / 1000) },
    secret: SECRET,
    maxAge: 30 * 60,
  })
  return `next-auth.session-token=${token}`
}

describe("the database refuses connections", () => {
  it("every console route answers 503 database_unavailable with Retry-After, never 500", async () => {
    const cookie = await adminCookie()
    const answered: string[] = []
    for (const { route, file } of walk()) {
      if (OUTSIDE.has(route)) continue
      const mod = (await import(file)) as Partial<Record<Method, Handler>>
      for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE"] as const) {
        const handler = mod[method]
        if (!handler) continue
        const url = `http://localhost${route.replace(/\[(?:\.\.\.)?(\w+)\]/g, "x")}`
        const req = new NextRequest(url, {
          method,
          headers: { cookie, origin: "http://localhost", ...(method === "GET" ? {} : { "content-type": "application/json" }) },
          ...(method === "GET" ? {} : { body: "{}" }),
        })
        const res = await handler(req, { params: Promise.resolve({}) })
        const body = (await res.json()) as { code?: string }
        expect({ key: `${method} ${route}`, status: res.status, code: body.code, retryAfter: res.headers.get("retry-after") }).toEqual({
          key: `${method} ${route}`,
          status: 503,
          code: "database_unavailable",
          retryAfter: "2",
        })
        answered.push(`${method} ${route}`)
      }
    }
    expect(answered.length).toBeGreaterThan(30)
  }, 180_000)

  it("liveness answers 200; readiness and the summary 503, each within their deadline", async () => {
    const live = (await import("@/app/api/health/live/route")).GET()
    expect(live.status).toBe(200)
    const ready = await (await import("@/app/api/health/ready/route")).GET()
    expect(ready.status).toBe(503)
    expect(await ready.json()).toMatchObject({ status: "not_ready", ready: false, checks: { database: "failed", migrations: "failed" } })
    const summary = await (await import("@/app/api/health/route")).GET()
    expect(summary.status).toBe(503)
  }, 60_000)
})
