import { randomUUID } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { NextRequest } from "next/server"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { ConsoleRuntime } from "@/lib/console/runtime"
import { sessionCookie } from "@/test/session"
import { insertIntentRows } from "@/test/intents"

// The metrics endpoint through its real route module, on a console in sandbox mode.
const dataDir = mkdtempSync(path.join(tmpdir(), "console-metrics-"))
const SECRET = "metrics-tests-secret-0123456789-abcdefghijklmn"
const TOKEN = `metrics-${randomUUID()}`
process.env.DATA_DIR = dataDir
process.env.NEXTAUTH_SECRET = SECRET
process.env.LOG_LEVEL = "silent"
process.env.METRICS_TOKEN = TOKEN

type Handler = (req: NextRequest, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>
let runtime: ConsoleRuntime
let metricsGet: Handler

function scrape(authorization?: string): Promise<Response> {
  const headers = new Headers(authorization ? { authorization } : {})
  return metricsGet(new NextRequest("http://localhost/api/metrics", { headers }), { params: Promise.resolve({}) })
}

/** The value of one sample line (`name{labels} value`) whose labels include every pair given. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split("\n")) {
    if (!line.startsWith(name)) continue
    const match = /^([a-z_]+)(\{[^}]*\})? (\S+)$/.exec(line)
    if (!match || match[1] !== name) continue
    const set = match[2] ?? ""
    if (Object.entries(labels).every(([k, v]) => set.includes(`${k}="${v}"`))) return Number(match[3])
  }
  return undefined
}

beforeAll(async () => {
  const { consoleRuntime } = await import("@/lib/console/runtime")
  runtime = await consoleRuntime()
  const route = await import("@/app/api/metrics/route")
  metricsGet = (req) => route.GET(req, { params: Promise.resolve({}) })
})

afterAll(async () => {
  await runtime?.quotes.stop()
  await runtime?.sandbox?.stop()
  rmSync(dataDir, { recursive: true, force: true })
})

describe("GET /api/metrics", () => {
  it("refuses without the bearer token, or with a wrong one, as problem+json", async () => {
    for (const authorization of [undefined, "Bearer wrong-token", `Basic ${TOKEN}`, TOKEN]) {
      const res = await scrape(authorization)
      expect(res.status).toBe(401)
      expect(res.headers.get("content-type")).toContain("application/problem+json")
      expect(res.headers.get("www-authenticate")).toContain("Bearer")
      const body = (await res.json()) as { status: number; detail: string }
      expect(body.status).toBe(401)
      expect(JSON.stringify(body)).not.toContain(TOKEN)
    }
  })

  it("answers every listed metric in Prometheus' text format, fed by real requests", async () => {
    // A viewer reads quotes through the console (a service call, a request to count).
    const cookie = await sessionCookie("viewer", { secret: SECRET })
    const quotesGet = ((await import("@/app/api/quotes/route")) as { GET: Handler }).GET
    // Next hands a route without dynamic segments no params at all.
    const quotes = await quotesGet(
      new NextRequest("http://localhost/api/quotes?markets=BTCUSD", { headers: { cookie } }),
      { params: undefined as unknown as Promise<Record<string, string>> },
    )
    expect(quotes.status).toBe(200)
    // An execution read by id: its route is counted under the route's pattern, not the id.
    const executions = ((await import("@/app/api/profiles/[profileId]/quote-executions/[id]/route")) as { GET: Handler }).GET
    const profileId = "no-such-profile"
    const id = randomUUID()
    const missing = await executions(
      new NextRequest(`http://localhost/api/profiles/${profileId}/quote-executions/${id}`, {
        headers: { cookie },
      }),
      { params: Promise.resolve({ profileId, id }) },
    )
    expect(missing.status).toBeGreaterThanOrEqual(400)

    const res = await scrape(`Bearer ${TOKEN}`)
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toContain("text/plain")
    const text = await res.text()
    expect(sample(text, "console_http_request_duration_seconds_count", { route: "/api/quotes", method: "GET", status: "200" })).toBe(1)
    expect(text).toContain('route="/api/profiles/[profileId]/quote-executions/[id]"')
    expect(text).not.toContain(profileId)
    expect(text).not.toContain(id)
    expect(sample(text, "console_upstream_request_duration_seconds_count", { operation: "listQuotes", status: "200" })).toBeGreaterThanOrEqual(1)
    expect(sample(text, "console_limiter_wait_seconds_count", { bucket: "other", limiter: "solo" })).toBeGreaterThanOrEqual(1)
    expect(sample(text, "console_limiter_shared")).toBe(1)
    expect(sample(text, "console_intents", { state: "PENDING" })).toBe(0)
    expect(sample(text, "console_intent_oldest_unresolved_age_seconds")).toBe(0)
    expect(sample(text, "console_quote_poller")).toBe(1)
    expect(sample(text, "console_quote_age_seconds")).toBeLessThan(5)
    for (const name of [
      "console_upstream_retries_total",
      "console_upstream_rate_limited_total",
      "console_limiter_refused_total",
      "console_reconciler_runs_total",
      "console_reconciler_intents_total",
      "console_sign_in_failures_total",
    ]) {
      expect(text).toContain(`# TYPE ${name} counter`)
    }
    expect(text).not.toContain(TOKEN)
  })

  it("counts a reconciler run and an unresolved intent's age", async () => {
    const { reconcileNow } = await import("@/lib/console/runtime")
    await insertIntentRows(runtime.db, {
      staffEmail: "trader@example.com",
      staffRole: "trader",
      operation: "create_conversion",
      refId: randomUUID(),
      request: {},
      createdAt: new Date(Date.now() - 120_000),
      updatedAt: new Date(Date.now() - 120_000),
      state: "UNKNOWN",
    })
    await reconcileNow({ olderThanMs: 3_600_000 })
    const text = await (await scrape(`Bearer ${TOKEN}`)).text()
    expect(sample(text, "console_reconciler_runs_total", { result: "ok" })).toBeGreaterThanOrEqual(1)
    expect(sample(text, "console_intents", { state: "UNKNOWN" })).toBe(1)
    expect(sample(text, "console_intent_oldest_unresolved_age_seconds")).toBeGreaterThanOrEqual(119)
  })
})

describe("withBearerToken", () => {
  it("a route whose token is not configured does not exist: 404 problem+json", async () => {
    const { withBearerToken } = await import("@/lib/console/with-bearer-token")
    const GET = withBearerToken(() => undefined, () => Promise.resolve(new Response("secret numbers")))
    const res = await GET(new NextRequest("http://localhost/api/metrics", { headers: { authorization: "Bearer anything" } }), {
      params: Promise.resolve({}),
    })
    expect(res.status).toBe(404)
    expect(res.headers.get("content-type")).toContain("application/problem+json")
  })

  it("a failing handler answers 500 problem+json with a request id, nothing of the error", async () => {
    const { withBearerToken } = await import("@/lib/console/with-bearer-token")
    const GET = withBearerToken(() => TOKEN, () => Promise.reject(new Error("database password is hunter2")))
    const res = await GET(new NextRequest("http://localhost/api/metrics", { headers: { authorization: `Bearer ${TOKEN}` } }), {
      params: Promise.resolve({}),
    })
    expect(res.status).toBe(500)
    expect(res.headers.get("content-type")).toContain("application/problem+json")
    expect(await res.text()).not.toContain("hunter2")
  })
})
