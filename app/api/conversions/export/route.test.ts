import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { NextRequest } from "next/server"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { sessionCookie } from "@/test/session"
import type { Role } from "@/lib/auth/roles"
import type { ConversionListQuery } from "@/lib/schemas/conversion"
import type { Conversion, ConversionPage } from "@/lib/schemas/records"
import { parseCsv } from "@/test/csv"
import { createTestDatabase } from "@/test/db"
import { consoleIntents } from "@/lib/db/schema"

const SECRET = "conversion-export-tests-secret-0123456789-abc"
process.env.NEXTAUTH_SECRET = SECRET
// Sessions live in the database: a PGlite folder of this file's own.
const sessionDataDir = mkdtempSync(path.join(tmpdir(), "console-session-test-"))
process.env.DATA_DIR = sessionDataDir
afterAll(() => rmSync(sessionDataDir, { recursive: true, force: true }))
process.env.LOG_LEVEL = "silent"

// A service with 2,345 conversions over two profiles, paged by the cursor the route follows.
const ROWS: Conversion[] = Array.from({ length: 2345 }, (_, i) => ({
  id: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
  profile_id: i % 5 === 0 ? "profile-2" : "profile-1",
  amount: i === 3 ? "12345678901234567.89" : `${i}.50`,
  source_asset: i % 2 === 0 ? "USD" : "USDP",
  target_asset: i % 2 === 0 ? "USDP" : "USD",
  status: i % 3 === 0 ? "CREATED" : "SETTLED",
  ref_id: i === 7 ? "=HYPERLINK(1)" : `ref-${i}`,
  created_at: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(),
  updated_at: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(),
  ...(i === 1 ? { metadata: { note: 'says "hi", then\nleaves' } } : {}),
}))
const calls: ConversionListQuery[] = []
const listConversions = vi.fn((query: ConversionListQuery = {}): Promise<ConversionPage> => {
  calls.push(query)
  if (query.profile_id === "profile-broken") return Promise.reject(new Error("the service fell over"))
  const selected = ROWS.filter(
    (r) =>
      (!query.profile_id || r.profile_id === query.profile_id) &&
      (!query["created_at.begin"] || (r.created_at ?? "") >= query["created_at.begin"]),
  )
  const start = query.page_cursor ? Number(query.page_cursor) : 0
  const limit = query.limit ?? 100
  const items = selected.slice(start, start + limit)
  return Promise.resolve({ items, ...(start + limit < selected.length ? { next_page_cursor: String(start + limit) } : {}) })
})

// The console's own database: who placed a record through the console (empty for the rest).
const mocked = vi.hoisted((): { db?: unknown } => ({}))
vi.mock("@/lib/console/runtime", () => ({ consoleRuntime: () => Promise.resolve({ upstream: { listConversions }, db: mocked.db }) }))

let GET: (req: NextRequest, ctx: { params: Promise<Record<string, never>> }) => Promise<Response>

beforeAll(async () => {
  const database = await createTestDatabase("pglite")
  afterAll(() => database.close())
  mocked.db = database.db
  // ref-10 was placed through this console by the trader; the rest elsewhere.
  await database.db.insert(consoleIntents).values({
    staffEmail: "trader@example.com",
    staffRole: "trader",
    operation: "create_conversion",
    profileId: "profile-1",
    refId: "ref-10",
    request: {},
    state: "SUCCEEDED",
  })
  ;({ GET } = await import("./route"))
})

async function call(role: Role, query: string): Promise<Response> {
  const cookie = await sessionCookie(role, { secret: SECRET })
  const req = new NextRequest(`http://localhost/api/conversions/export${query}`, { headers: { cookie: cookie } })
  return GET(req, { params: Promise.resolve({}) })
}

describe("GET /api/conversions/export", () => {
  it("streams every page the filters select, with the filters on every call", async () => {
    calls.length = 0
    const begin = "2026-01-01T10:00:00.000Z"
    const res = await call("support", `?profile_id=profile-1&created_at.begin=${begin}`)
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8")
    expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="conversions-\d{8}T\d{6}Z\.csv"$/)
    const [header, ...rows] = parseCsv(await res.text())
    expect(header).toEqual([
      "id", "ref_id", "status", "profile_id", "source_asset", "target_asset", "amount", "created_at", "updated_at", "settled_at",
      "cancelled_at", "identity_id", "account_id", "recipient_profile_id", "metadata",
      "fail_reason", "placed_by", "approved_by",
    ])
    const expected = ROWS.filter((r) => r.profile_id === "profile-1" && (r.created_at ?? "") >= begin)
    expect(expected.length).toBeGreaterThan(1000)
    expect(rows.map((r) => r[0])).toEqual(expected.map((r) => r.id))
    expect(calls).toHaveLength(Math.ceil(expected.length / 500))
    expect(calls.every((q) => q.profile_id === "profile-1" && q["created_at.begin"] === begin && q.limit === 500)).toBe(true)
  })

  it("exports everything without filters, amounts as written and text safe for spreadsheets", async () => {
    const [, ...rows] = parseCsv(await (await call("admin", "")).text())
    expect(rows).toHaveLength(2345)
    const byId = new Map(rows.map((r) => [r[0], r]))
    expect(byId.get(ROWS[3]!.id)![6]).toBe("12345678901234567.89")
    expect(byId.get(ROWS[7]!.id)![1]).toBe("'=HYPERLINK(1)")
    expect(byId.get(ROWS[1]!.id)![14]).toBe('{"note":"says \\"hi\\", then\\nleaves"}')
    expect(byId.get(ROWS[10]!.id)!.slice(16)).toEqual(["trader@example.com", ""])
    expect(byId.get(ROWS[11]!.id)!.slice(16)).toEqual(["", ""])
  })

  it("refuses a viewer and bad filters, and answers a failing first page as a problem, not a broken file", async () => {
    expect((await call("viewer", "")).status).toBe(403)
    const bad = await call("support", "?created_at.end=yesterday&colour=red")
    expect(bad.status).toBe(400)
    expect(((await bad.json()) as { meta: { fields: Record<string, string> } }).meta.fields).toMatchObject({
      "created_at.end": "must be an RFC 3339 date-time",
      colour: "is not a known field",
    })
    expect((await call("support", "?page_cursor=abc")).status).toBe(400)
    const failing = await call("support", "?profile_id=profile-broken")
    expect(failing.status).toBe(500)
    expect(failing.headers.get("content-type")).toBe("application/problem+json")
  })
})
