import { randomUUID } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { NextRequest } from "next/server"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { sessionCookie } from "@/test/session"
import type { Role } from "@/lib/auth/roles"
import type { ConsoleRuntime } from "@/lib/console/runtime"
import { toDecimal } from "@/lib/money"
import { parseCsvRecords } from "@/test/csv"
import { insertIntentRows } from "@/test/intents"

// The sandbox tools and the audit export through their real route modules, with real
// sessions, against the embedded sandbox in process on a fresh PGlite folder.
const dataDir = mkdtempSync(path.join(tmpdir(), "console-sandbox-tools-"))
const SECRET = "sandbox-tools-tests-secret-0123456789-abcdef"
process.env.DATA_DIR = dataDir
process.env.NEXTAUTH_SECRET = SECRET
process.env.LOG_LEVEL = "silent"

type Handler = (req: NextRequest, ctx: { params: Promise<Record<string, never>> }) => Promise<Response>

let runtime: ConsoleRuntime
let profileId: string

async function call(handler: Handler, method: string, url: string, body?: unknown, role: Role = "admin"): Promise<Response> {
  const cookie = await sessionCookie(role, { secret: SECRET })
  const headers = new Headers({ cookie: cookie })
  if (method !== "GET") headers.set("origin", "http://localhost")
  if (body !== undefined) headers.set("content-type", "application/json")
  return handler(new NextRequest(`http://localhost${url}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }), {
    params: Promise.resolve({}),
  })
}

const settings = () => import("@/app/api/sandbox/settings/route")
const status = () => import("@/app/api/sandbox/status/route")
const deposit = () => import("@/app/api/sandbox/deposit/route")
const auditExport = () => import("@/app/api/audit/export/route")

beforeAll(async () => {
  const { consoleRuntime } = await import("@/lib/console/runtime")
  runtime = await consoleRuntime()
  profileId = (await runtime.upstream.listProfiles()).items[0]!.id
}, 60_000)

afterEach(async () => {
  await runtime.upstream.putFaults({ rules: [] })
})

afterAll(async () => {
  await runtime?.sandbox?.stop()
  rmSync(dataDir, { recursive: true, force: true })
})

describe("PUT /api/sandbox/settings", () => {
  it("refuses a bad body with a 400 naming each field, and changes nothing", async () => {
    const { PUT, GET } = await settings()
    const before = (await (await call(GET, "GET", "/api/sandbox/settings")).json()) as unknown
    const res = await call(PUT, "PUT", "/api/sandbox/settings", {
      settle_delay_ms: -1,
      rate_limits: "yes",
      rules: [{ operation: "quotes", fault: "commit_then_fail", rate: 2, status: 503 }],
      colour: "red",
    })
    expect(res.status).toBe(400)
    expect(res.headers.get("content-type")).toBe("application/problem+json")
    const problem = (await res.json()) as { meta: { fields: Record<string, string> } }
    expect(problem.meta.fields).toMatchObject({
      settle_delay_ms: "must not be negative",
      rate_limits: "must be true or false",
      "rules.0.rate": "must be from 0 to 1",
      colour: "is not a known field",
    })
    expect(await (await call(GET, "GET", "/api/sandbox/settings")).json()).toEqual(before)
  })

  it("turns faults on and off, and the status (and the banner's check) follows at once", async () => {
    const { PUT } = await settings()
    const { GET } = await status()
    const { bannerFaultsStatus, pageSandboxSettings } = await import("@/lib/console/sandbox-tools")
    expect(await (await call(GET, "GET", "/api/sandbox/status")).json()).toEqual({ faults_active: false, active_rules: 0, operations: [] })

    const on = await call(PUT, "PUT", "/api/sandbox/settings", {
      settle_delay_ms: 250,
      rules: [
        { operation: "create_execution", fault: "commit_then_fail", rate: 1, status: "drop" },
        { operation: "quotes", fault: "latency", rate: 0, latency_ms: 10 },
      ],
    })
    expect(on.status).toBe(200)
    expect(await on.json()).toMatchObject({ settle_delay_ms: 250, rules: [{ fault: "commit_then_fail", status: "drop" }, { fault: "latency" }] })
    expect(await (await call(GET, "GET", "/api/sandbox/status")).json()).toEqual({
      faults_active: true,
      active_rules: 1,
      operations: ["create_execution"],
    })
    expect(await bannerFaultsStatus()).toMatchObject({ faults_active: true })
    // The /sandbox page renders with the same settings the route answers.
    expect(await pageSandboxSettings()).toEqual(await (await call((await settings()).GET, "GET", "/api/sandbox/settings")).json())

    const off = await call(PUT, "PUT", "/api/sandbox/settings", { rules: [] })
    expect(await off.json()).toMatchObject({ settle_delay_ms: 250, rules: [] })
    expect(await bannerFaultsStatus()).toMatchObject({ faults_active: false })
    await call(PUT, "PUT", "/api/sandbox/settings", { settle_delay_ms: 0 })
  })

  it("GET /api/sandbox/status: every role reads the banner's three fields and nothing else of the settings", async () => {
    const { PUT } = await settings()
    const { GET } = await status()
    await call(PUT, "PUT", "/api/sandbox/settings", {
      seed: 4242,
      rules: [
        { operation: "create_conversion", fault: "latency", rate: 0.5, latency_ms: 1234 },
        { operation: "create_execution", fault: "error", rate: 1, status: 503 },
      ],
    })
    for (const role of ["viewer", "support", "trader", "admin"] as const) {
      const res = await call(GET, "GET", "/api/sandbox/status", undefined, role)
      expect(res.status).toBe(200)
      const text = await res.text()
      expect(JSON.parse(text)).toEqual({ faults_active: true, active_rules: 2, operations: ["create_conversion", "create_execution"] })
      // No seed, rates, latencies, statuses or settings leak through it.
      expect(text).not.toMatch(/4242|1234|503|seed|rate|latency|settle/)
    }
  })

  it("changes the quote hold time of quotes made afterwards", async () => {
    const { PUT, GET } = await settings()
    const before = (await (await call(GET, "GET", "/api/sandbox/settings")).json()) as { quote_ttl_ms: number }
    expect(before.quote_ttl_ms).toBe(30_000)
    const res = await call(PUT, "PUT", "/api/sandbox/settings", { quote_ttl_ms: 5_000 })
    expect(await res.json()).toMatchObject({ quote_ttl_ms: 5_000 })
    try {
      // Quotes are made once per second: wait for the next second so the new hold time applies.
      await new Promise((resolve) => setTimeout(resolve, 1_100))
      const [quote] = await runtime.upstream.listQuotes(["BTCUSD"])
      expect(Date.parse(quote!.expires_at) - Date.parse(quote!.created_at)).toBe(5_000)
    } finally {
      await call(PUT, "PUT", "/api/sandbox/settings", { quote_ttl_ms: 30_000 })
    }
    expect((await call(PUT, "PUT", "/api/sandbox/settings", { quote_ttl_ms: 50 })).status).toBe(400)
  })

  it("is for admins only", async () => {
    const { PUT } = await settings()
    for (const role of ["viewer", "support", "trader"] as const) {
      expect((await call(PUT, "PUT", "/api/sandbox/settings", { rules: [] }, role)).status).toBe(403)
    }
  })
})

describe("POST /api/sandbox/deposit", () => {
  async function available(asset: string): Promise<string> {
    const balances = await runtime.upstream.listBalances(profileId, [asset])
    return balances.find((b) => b.asset === asset)?.available ?? "0"
  }

  it("credits exactly the amount to the profile", async () => {
    const { POST } = await deposit()
    const before = await available("ETH")
    const res = await call(POST, "POST", "/api/sandbox/deposit", { profile_id: profileId, asset: "ETH", amount: "1.23456789" })
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({ profile_id: profileId, asset: "ETH", amount: "1.23456789" })
    expect(toDecimal(await available("ETH")).minus(toDecimal(before)).toFixed()).toBe("1.23456789")
  })

  it("refuses more decimals than the asset has, naming the field, before anything reaches the sandbox", async () => {
    const { POST } = await deposit()
    const before = await available("USD")
    const res = await call(POST, "POST", "/api/sandbox/deposit", { profile_id: profileId, asset: "USD", amount: "10.001" })
    expect(res.status).toBe(400)
    expect(((await res.json()) as { meta: { fields: Record<string, string> } }).meta.fields).toEqual({ amount: "at most 2 decimals for USD" })
    expect(await available("USD")).toBe(before)
  })

  it("passes the sandbox's 404 for an unknown profile through", async () => {
    const { POST } = await deposit()
    const res = await call(POST, "POST", "/api/sandbox/deposit", { profile_id: randomUUID(), asset: "USD", amount: "1.00" })
    expect(res.status).toBe(404)
  })
})

describe("GET /api/audit/export", () => {
  it("streams every intent the filters select, across pages, and nothing else", async () => {
    const staffEmail = `export-${randomUUID().slice(0, 8)}@example.com`
    const rows = Array.from({ length: 1203 }, (_, i) => ({
      staffEmail,
      staffRole: "trader",
      operation: "create_conversion" as const,
      profileId,
      refId: randomUUID(),
      request: { profile_id: profileId, amount: `${i + 1}.00`, source_asset: "USD", target_asset: "USDP" },
      state: i % 3 === 0 ? ("FAILED" as const) : ("SUCCEEDED" as const),
      problem: i % 3 === 0 ? { title: "Insufficient Funds", status: 403 } : null,
    }))
    await insertIntentRows(runtime.db, rows)
    const { GET } = await auditExport()

    const all = await call(GET, "GET", `/api/audit/export?staff=${encodeURIComponent(staffEmail)}`)
    expect(all.status).toBe(200)
    expect(all.headers.get("content-type")).toBe("text/csv; charset=utf-8")
    expect(all.headers.get("content-disposition")).toMatch(/^attachment; filename="audit-\d{8}T\d{6}Z\.csv"$/)
    const exported = parseCsvRecords(await all.text())
    expect(exported).toHaveLength(1203)
    expect(new Set(exported.map((r) => r.ref_id))).toEqual(new Set(rows.map((r) => r.refId)))

    const failed = parseCsvRecords(await (await call(GET, "GET", `/api/audit/export?staff=${encodeURIComponent(staffEmail)}&state=FAILED`)).text())
    expect(failed).toHaveLength(401)
    for (const row of failed) expect(row).toMatchObject({ state: "FAILED", staff_email: staffEmail, problem_title: "Insufficient Funds", source_asset: "USD" })

    const future = new Date(Date.now() + 86_400_000).toISOString()
    expect(parseCsvRecords(await (await call(GET, "GET", `/api/audit/export?staff=${encodeURIComponent(staffEmail)}&from=${future}`)).text())).toHaveLength(0)
  })

  it("refuses bad filters with a 400 naming them", async () => {
    const { GET } = await auditExport()
    const res = await call(GET, "GET", "/api/audit/export?state=DONE&from=yesterday")
    expect(res.status).toBe(400)
    const fields = ((await res.json()) as { meta: { fields: Record<string, string> } }).meta.fields
    expect(Object.keys(fields).sort()).toEqual(["from", "state"])
  })
})

describe("GET /api/audit", () => {
  it("pages like every other list: limit and page_cursor in, next_page_cursor out until the last page", async () => {
    const staffEmail = `paging-${randomUUID().slice(0, 8)}@example.com`
    const refIds = Array.from({ length: 5 }, () => randomUUID())
    await insertIntentRows(
      runtime.db,
      refIds.map((refId) => ({ staffEmail, staffRole: "trader", operation: "create_conversion" as const, profileId, refId, request: {} })),
    )
    const { GET } = await import("@/app/api/audit/route")
    const seen: string[] = []
    let pageCursor: string | undefined
    let pages = 0
    do {
      const query = `staff=${encodeURIComponent(staffEmail)}&limit=2${pageCursor ? `&page_cursor=${encodeURIComponent(pageCursor)}` : ""}`
      const res = await call(GET, "GET", `/api/audit?${query}`)
      expect(res.status).toBe(200)
      const page = (await res.json()) as { items: { ref_id: string }[]; next_page_cursor?: string }
      seen.push(...page.items.map((i) => i.ref_id))
      pageCursor = page.next_page_cursor
      pages += 1
    } while (pageCursor)
    expect(pages).toBe(3)
    expect(new Set(seen)).toEqual(new Set(refIds))

    const refused = await call(GET, "GET", "/api/audit?page_cursor=not-one-of-ours")
    expect(refused.status).toBe(400)
    expect(((await refused.json()) as { meta: { fields: Record<string, string> } }).meta.fields).toEqual({
      page_cursor: "is not a cursor this console issued",
    })
  })
})

describe("/api/sandbox/conversions-api", () => {
  const switchRoute = () => import("@/app/api/sandbox/conversions-api/route")
  const conversions = () => import("@/app/api/conversions/route")
  const lookup = () => import("@/app/api/conversions/lookup/route")
  const audit = () => import("@/app/api/audit/route")

  afterAll(async () => {
    const { PUT } = await switchRoute()
    await call(PUT, "PUT", "/api/sandbox/conversions-api", { api: "stablecoin-conversions" })
  })

  it("is for admins, and names the field of a bad body", async () => {
    const { GET, PUT } = await switchRoute()
    expect((await call(PUT, "PUT", "/api/sandbox/conversions-api", { api: "orchestrations" }, "trader")).status).toBe(403)
    const bad = await call(PUT, "PUT", "/api/sandbox/conversions-api", { api: "swaps" })
    expect(bad.status).toBe(400)
    expect(bad.headers.get("content-type")).toBe("application/problem+json")
    expect(((await bad.json()) as { meta: { fields: Record<string, string> } }).meta.fields).toEqual({
      api: "must be stablecoin-conversions or orchestrations",
    })
    expect(await (await call(GET, "GET", "/api/sandbox/conversions-api")).json()).toEqual({
      api: "stablecoin-conversions",
      configured: "stablecoin-conversions",
    })
  })

  it("switches the desk to Orchestrations: same balances, the service's statuses, look-up by ref_id, the API in the audit", async () => {
    const { GET, PUT } = await switchRoute()
    const before = (await runtime.upstream.listBalances(profileId, ["USD"]))[0]!
    const switched = await call(PUT, "PUT", "/api/sandbox/conversions-api", { api: "orchestrations" })
    expect(await switched.json()).toEqual({ api: "orchestrations", configured: "stablecoin-conversions" })
    expect(await (await call(GET, "GET", "/api/sandbox/conversions-api")).json()).toMatchObject({ api: "orchestrations" })
    expect((await runtime.upstream.listBalances(profileId, ["USD"]))[0]).toEqual(before)

    const refId = randomUUID()
    const created = await call((await conversions()).POST, "POST", "/api/conversions", {
      profile_id: profileId,
      amount: "10.00",
      source_asset: "USD",
      target_asset: "USDG",
      ref_id: refId,
    }, "trader")
    expect(created.status).toBe(200)
    const record = (await created.json()) as { id: string; status: string; amount: string; target_asset: string }
    expect(record).toMatchObject({ status: "PROCESSING", amount: "10", target_asset: "USDG" })
    const found = await call((await lookup()).GET, "GET", `/api/conversions/lookup?q=${refId}`, undefined, "support")
    expect(((await found.json()) as { conversion: { id: string }; matched_by: string })).toMatchObject({ conversion: { id: record.id }, matched_by: "ref_id" })
    const listed = await call((await conversions()).GET, "GET", `/api/conversions?profile_id=${profileId}&limit=5`, undefined, "support")
    expect(((await listed.json()) as { items: { id: string }[] }).items.map((c) => c.id)).toContain(record.id)
    const trail = await call((await audit()).GET, "GET", "/api/audit?operation=create_conversion&limit=5")
    const entry = ((await trail.json()) as { items: { ref_id: string; upstream_api: string | null }[] }).items.find((i) => i.ref_id === refId)
    expect(entry?.upstream_api).toBe("orchestrations")
  })
})
