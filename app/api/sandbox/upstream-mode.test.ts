import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { NextRequest } from "next/server"
import { afterAll, describe, expect, it } from "vitest"
import { sessionCookie } from "@/test/session"

// Against the real service (UPSTREAM_* set) the sandbox tools do not exist: 404, and
// nothing is sent anywhere. The banner's fault check is skipped.
const SECRET = "upstream-mode-tests-secret-0123456789-abcdef"
process.env.UPSTREAM_BASE_URL = "https://upstream.invalid/v2"
process.env.UPSTREAM_TOKEN_URL = "https://upstream.invalid/oauth2/token"
process.env.UPSTREAM_CLIENT_ID = "id"
process.env.UPSTREAM_CLIENT_SECRET = "secret"
process.env.NEXTAUTH_SECRET = SECRET
// Sessions live in the database: a PGlite folder of this file's own.
const sessionDataDir = mkdtempSync(path.join(tmpdir(), "console-session-test-"))
process.env.DATA_DIR = sessionDataDir
afterAll(() => rmSync(sessionDataDir, { recursive: true, force: true }))
process.env.NEXTAUTH_URL = "http://localhost"
process.env.CONSOLE_USERS = JSON.stringify([{ email: "admin@example.com", role: "admin", passwordHash: `$2b$10$${"a".repeat(53)}` }])
process.env.LOG_LEVEL = "silent"

type Handler = (req: NextRequest, ctx: { params: Promise<Record<string, never>> }) => Promise<Response>

async function call(handler: Handler, method: string, url: string, body?: unknown): Promise<Response> {
  const cookie = await sessionCookie("admin", { secret: SECRET })
  const headers = new Headers({ cookie: cookie })
  if (method !== "GET") headers.set("origin", "http://localhost")
  if (body !== undefined) headers.set("content-type", "application/json")
  return handler(new NextRequest(`http://localhost${url}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }), {
    params: Promise.resolve({}),
  })
}

describe("sandbox tools in upstream mode", () => {
  it("answer 404 problem+json to an admin, for every route", async () => {
    const settings = await import("@/app/api/sandbox/settings/route")
    const status = await import("@/app/api/sandbox/status/route")
    const deposit = await import("@/app/api/sandbox/deposit/route")
    const conversionsApi = await import("@/app/api/sandbox/conversions-api/route")
    const history = await import("@/app/api/sandbox/history/route")
    const silent = await import("@/app/api/sandbox/silent-movement/route")
    const lost = await import("@/app/api/sandbox/lost-record/route")
    const answers = [
      await call(settings.GET, "GET", "/api/sandbox/settings"),
      await call(settings.PUT, "PUT", "/api/sandbox/settings", { rules: [] }),
      await call(status.GET, "GET", "/api/sandbox/status"),
      await call(deposit.POST, "POST", "/api/sandbox/deposit", { profile_id: "p", asset: "USD", amount: "1.00" }),
      await call(conversionsApi.GET, "GET", "/api/sandbox/conversions-api"),
      await call(conversionsApi.PUT, "PUT", "/api/sandbox/conversions-api", { api: "orchestrations" }),
      await call(history.POST, "POST", "/api/sandbox/history", { seed: 1 }),
      await call(silent.POST, "POST", "/api/sandbox/silent-movement", { profile_id: "p", asset: "USD", amount: "3.50" }),
      await call(lost.POST, "POST", "/api/sandbox/lost-record", { record_id: "r" }),
    ]
    for (const res of answers) {
      expect(res.status).toBe(404)
      expect(res.headers.get("content-type")).toBe("application/problem+json")
      expect(await res.json()).toMatchObject({ status: 404, detail: "The sandbox tools exist in sandbox mode only." })
    }
  })

  it("the banner names the configured conversion API; nothing can switch it", async () => {
    const { bannerConversionsApi } = await import("@/lib/console/runtime")
    expect(await bannerConversionsApi()).toBe("stablecoin-conversions")
  })

  it("the banner does not ask about faults, nor the sandbox page about settings", async () => {
    const { bannerFaultsStatus, pageSandboxSettings } = await import("@/lib/console/sandbox-tools")
    expect(await bannerFaultsStatus()).toBeNull()
    expect(await pageSandboxSettings()).toBeNull()
  })
})
