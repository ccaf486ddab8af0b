import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { NextRequest } from "next/server"
import { afterAll, afterEach, describe, expect, it, vi } from "vitest"
import type { Role } from "@/lib/auth/roles"
import { staffRef } from "@/lib/auth/staff-ref"
import { validationProblem, withStaff } from "@/lib/console/with-staff"
import { PROBLEM_TYPE_BASE } from "@/lib/schemas/problem"
import { quoteExecutionCreateSchema } from "@/lib/schemas/quote-execution"
import { UpstreamProblemError } from "@/lib/upstream"
import { sessionCookie } from "@/test/session"

const dataDir = mkdtempSync(path.join(tmpdir(), "with-staff-"))
const SECRET = "with-staff-tests-secret-0123456789-abcdefghij"
process.env.DATA_DIR = dataDir
process.env.NEXTAUTH_SECRET = SECRET
process.env.LOG_LEVEL = "info"

afterAll(() => rmSync(dataDir, { recursive: true, force: true }))
afterEach(() => {
  vi.restoreAllMocks()
})

async function request(method: string, options: { role?: Role; headers?: Record<string, string> } = {}): Promise<NextRequest> {
  const headers = new Headers(options.headers)
  if (options.role) headers.set("cookie", await sessionCookie(options.role, { secret: SECRET }))
  return new NextRequest("http://localhost/api/thing", { method, headers })
}

const noParams = { params: Promise.resolve({}) }
const ok = withStaff("trader", () => Promise.resolve(Response.json({ done: true })))

/** What the wrapper wrote to stderr (warnings and errors) while `run` ran. */
async function stderrOf(run: () => Promise<unknown>): Promise<string> {
  const lines: string[] = []
  vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk))
    return true
  })
  await run()
  vi.restoreAllMocks()
  return lines.join("")
}

describe("withStaff", () => {
  it("a failure inside a handler is a 500 problem with a request id and no internals, logged once", async () => {
    const failing = withStaff("viewer", () => Promise.reject(new Error("connect ECONNREFUSED postgres://console:hunter2@db/console")))
    let res: Response | undefined
    const logged = await stderrOf(async () => {
      res = await failing(await request("GET", { role: "viewer" }), noParams)
    })
    expect(res?.status).toBe(500)
    expect(res?.headers.get("content-type")).toBe("application/problem+json")
    const body = (await res!.json()) as { detail: string; meta: { request_id: string } }
    expect(body.meta.request_id).toBe(res?.headers.get("x-request-id"))
    expect(body.detail).toContain(body.meta.request_id)
    expect(JSON.stringify(body)).not.toContain("hunter2")
    expect(JSON.stringify(body)).not.toContain("ECONNREFUSED")
    expect(logged).toContain(body.meta.request_id)
    expect(logged).not.toContain("hunter2")
  })

  it("a write without Origin is let through only when Sec-Fetch-Site says same-origin", async () => {
    const sameOrigin = await ok(await request("POST", { role: "trader", headers: { "sec-fetch-site": "same-origin" } }), noParams)
    expect(sameOrigin.status).toBe(200)
    for (const site of ["cross-site", "same-site", "none"]) {
      const res = await ok(await request("POST", { role: "trader", headers: { "sec-fetch-site": site } }), noParams)
      expect(`${site} ${res.status}`).toBe(`${site} 403`)
    }
    const neither = await ok(await request("POST", { role: "trader" }), noParams)
    expect(neither.status).toBe(403)
  })

  it("logs every denial with who, what and why, and never the session cookie", async () => {
    const req = await request("POST", { role: "viewer", headers: { origin: "http://localhost" } })
    const cookie = req.headers.get("cookie")!.split("=")[1]!
    const logged = await stderrOf(async () => {
      expect((await ok(req, noParams)).status).toBe(403)
      expect((await ok(await request("GET"), noParams)).status).toBe(401)
    })
    const events = logged.trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>)
    expect(events).toEqual([
      expect.objectContaining({ event: "authz.denied", who: staffRef("viewer@example.com"), what: "POST /api/thing", why: "role viewer below trader", status: 403 }),
      expect.objectContaining({ event: "authz.denied", who: "anonymous", what: "GET /api/thing", why: "no valid session", status: 401 }),
    ])
    expect(logged).not.toContain(cookie.slice(0, 40))
    expect(logged).not.toContain("@example.com")
  })
})

describe("doors withStaff keeps shut", () => {
  it("without NEXTAUTH_URL, a Host that is not a loopback name is refused (DNS rebinding), a loopback one served", async () => {
    const foreign = await ok(await request("GET", { role: "trader", headers: { host: "evil.example" } }), noParams)
    expect(foreign.status).toBe(403)
    expect(await foreign.json()).toMatchObject({ detail: "This console answers only on localhost until NEXTAUTH_URL names the address it is served at." })
    const rebound = await ok(await request("GET", { role: "trader", headers: { host: "127.0.0.1:3000", "x-forwarded-host": "evil.example" } }), noParams)
    expect(rebound.status).toBe(403)
    expect((await ok(await request("GET", { role: "trader", headers: { host: "localhost:3000" } }), noParams)).status).toBe(200)
  })

  it("a Content-Length over 64 KiB is a 413 problem before the session is even looked at", async () => {
    const res = await ok(await request("POST", { headers: { "content-length": String(100 * 1024 * 1024), "content-type": "application/json" } }), noParams)
    expect(res.status).toBe(413)
    expect(res.headers.get("content-type")).toBe("application/problem+json")
  })

  it("a client that went away is logged at info, not as a failure", async () => {
    const failing = withStaff("viewer", () => Promise.reject(new Error("The operation was aborted")))
    const controller = new AbortController()
    const headers = new Headers({ cookie: await sessionCookie("viewer", { secret: SECRET }) })
    const req = new NextRequest("http://localhost/api/thing", { headers, signal: controller.signal })
    controller.abort()
    const logged = await stderrOf(async () => {
      await failing(req, noParams)
    })
    expect(logged).toBe("")
  })
})

describe("withStaff's answers carry their code", () => {
  const codeOf = async (res: Response) => ({ status: res.status, ...((await res.json()) as { code?: string; meta?: Record<string, unknown> }) })

  it("for every door it keeps shut", async () => {
    await stderrOf(async () => {
      expect(await codeOf(await ok(await request("GET"), noParams))).toMatchObject({ status: 401, code: "unauthenticated" })
      expect(await codeOf(await ok(await request("GET", { role: "viewer" }), noParams))).toMatchObject({
        status: 403,
        code: "role_required",
        meta: { required_role: "trader" },
      })
      expect(await codeOf(await ok(await request("POST", { role: "trader", headers: { origin: "https://evil.example" } }), noParams))).toMatchObject({
        status: 403,
        code: "forbidden_origin",
      })
      expect(await codeOf(await ok(await request("GET", { role: "trader", headers: { host: "evil.example" } }), noParams))).toMatchObject({
        status: 403,
        code: "forbidden_host",
      })
      const large = await request("POST", { headers: { "content-length": String(100 * 1024 * 1024), "content-type": "application/json" } })
      expect(await codeOf(await ok(large, noParams))).toMatchObject({ status: 413, code: "body_too_large" })
    })
  })

  it("for what a handler throws: invalid input, a failure, the service's refusal passed on", async () => {
    const invalid = withStaff("viewer", () => Promise.resolve(Response.json(quoteExecutionCreateSchema.parse({ quote_id: "q", base_amount: "x" }))))
    expect(await codeOf(await invalid(await request("GET", { role: "viewer" }), noParams))).toMatchObject({
      status: 400,
      code: "validation_failed",
      meta: { fields: { base_amount: expect.any(String) as string } },
    })
    const failing = withStaff("viewer", () => Promise.reject(new Error("boom")))
    await stderrOf(async () => {
      expect(await codeOf(await failing(await request("GET", { role: "viewer" }), noParams))).toMatchObject({ status: 500, code: "internal_error" })
    })
    const expired = new UpstreamProblemError(
      { type: `${PROBLEM_TYPE_BASE}expired`, title: "Expired", status: 403, detail: "quote expired", meta: { expired_at: "2020-01-17T18:36:38Z" } },
      { operation: "createQuoteExecution", mutating: true },
    )
    const refused = withStaff("viewer", () => Promise.reject(expired))
    expect(await codeOf(await refused(await request("GET", { role: "viewer" }), noParams))).toEqual({
      status: 403,
      type: `${PROBLEM_TYPE_BASE}expired`,
      title: "Expired",
      code: "expired",
      detail: "quote expired",
      meta: { expired_at: "2020-01-17T18:36:38Z", service: true },
    })
  })
})

describe("validation problems", () => {
  it("name each offending field and its rule", () => {
    const result = quoteExecutionCreateSchema.safeParse({
      quote_id: "q-1",
      base_amount: "0.123456789",
      metadata: { k: "x".repeat(101) },
    })
    expect(result.success).toBe(false)
    if (result.success) return
    const problem = validationProblem(result.error)
    expect(problem.status).toBe(400)
    expect(problem.meta).toEqual({
      fields: { base_amount: "at most 8 decimals", "metadata.k": "values are at most 100 characters" },
    })
    expect(problem.detail).toBe("base_amount: at most 8 decimals; metadata.k: values are at most 100 characters")
  })

  it("name an unknown key even when it is called like something every object has (valueOf, constructor, __proto__)", () => {
    for (const key of ["valueOf", "constructor", "toString", "hasOwnProperty", "__proto__"]) {
      const body = JSON.parse(`{"quote_id":"q-1","base_amount":"1","${key}":0}`) as unknown
      const result = quoteExecutionCreateSchema.safeParse(body)
      expect(result.success, key).toBe(false)
      if (result.success) continue
      const problem = validationProblem(result.error)
      expect(JSON.parse(JSON.stringify(problem.meta)), key).toEqual({ fields: { [key]: "is not a known field" } })
      expect(problem.detail, key).toBe(`${key}: is not a known field`)
    }
  })
})
