import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { NextRequest } from "next/server"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { sessionCookie } from "@/test/session"
import type { Role } from "@/lib/auth/roles"
import type { QuoteExecutionListQuery } from "@/lib/schemas/quote-execution"
import type { QuoteExecution, QuoteExecutionPage } from "@/lib/schemas/records"
import { parseCsv } from "@/test/csv"
import { createTestDatabase } from "@/test/db"

const SECRET = "export-route-tests-secret-0123456789-abcdef"
process.env.NEXTAUTH_SECRET = SECRET
// Sessions live in the database: a PGlite folder of this file's own.
const sessionDataDir = mkdtempSync(path.join(tmpdir(), "console-session-test-"))
process.env.DATA_DIR = sessionDataDir
afterAll(() => rmSync(sessionDataDir, { recursive: true, force: true }))
process.env.LOG_LEVEL = "silent"

// A service with 1,234 executions, paged by the cursor the route follows.
const ROWS: QuoteExecution[] = Array.from({ length: 1234 }, (_, i) => ({
  id: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
  profile_id: "profile-1",
  quote_id: `quote-${i}`,
  ref_id: i === 7 ? "=cmd|'/c calc'!A1" : `ref-${i}`,
  status: i % 3 === 0 ? "CREATED" : "SETTLED",
  market: i % 2 === 0 ? "BTCUSD" : "ETHUSD",
  side: i % 4 < 2 ? "BUY" : "SELL",
  price: "97123.456789012345678",
  base_amount: "0.00000001",
  base_asset: i % 2 === 0 ? "BTC" : "ETH",
  quote_amount: "1234567.89",
  quote_asset: "USD",
  created_at: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
  ...(i === 1 ? { metadata: { note: 'says "hi", then\nleaves' } } : {}),
}))
const calls: QuoteExecutionListQuery[] = []
const listQuoteExecutions = vi.fn((profileId: string, query: QuoteExecutionListQuery): Promise<QuoteExecutionPage> => {
  calls.push(query)
  if (profileId !== "profile-1") return Promise.reject(new Error("unknown profile"))
  const selected = ROWS.filter((r) => (!query.side || r.side === query.side) && (!query.market || r.market === query.market))
  const start = query.page_cursor ? Number(query.page_cursor) : 0
  const limit = query.limit ?? 100
  const items = selected.slice(start, start + limit)
  return Promise.resolve({
    total_count: selected.length,
    items,
    ...(start + limit < selected.length ? { next_page_cursor: String(start + limit) } : {}),
  })
})

// The console's own database: who placed a record through the console (empty for the rest).
const mocked = vi.hoisted((): { db?: unknown } => ({}))
vi.mock("@/lib/console/runtime", () => ({ consoleRuntime: () => Promise.resolve({ upstream: { listQuoteExecutions }, db: mocked.db }) }))

let GET: (req: NextRequest, ctx: { params: Promise<{ profileId: string }> }) => Promise<Response>

beforeAll(async () => {
  const database = await createTestDatabase("pglite")
  afterAll(() => database.close())
  mocked.db = database.db
  ;({ GET } = await import("./route"))
})

async function call(role: Role, query: string, profileId = "profile-1"): Promise<Response> {
  const cookie = await sessionCookie(role, { secret: SECRET })
  const req = new NextRequest(`http://localhost/api/profiles/${profileId}/quote-executions/export${query}`, {
    headers: { cookie: cookie },
  })
  return GET(req, { params: Promise.resolve({ profileId }) })
}

describe("GET /api/profiles/{profileId}/quote-executions/export", () => {
  it("streams every page the filters select, amounts exactly as the service wrote them", async () => {
    calls.length = 0
    const res = await call("support", "?side=BUY&market=BTCUSD")
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8")
    expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="quote-executions-profile-1-\d{8}T\d{6}Z\.csv"$/)
    const [header, ...rows] = parseCsv(await res.text())
    expect(header).toEqual([
      "id", "created_at", "settled_at", "status", "market", "side", "price", "base_amount", "base_asset", "quote_amount", "quote_asset",
      "quote_id", "ref_id", "profile_id", "identity_id", "account_id", "recipient_profile_id", "metadata", "placed_by", "approved_by",
    ])
    const expected = ROWS.filter((r) => r.side === "BUY" && r.market === "BTCUSD")
    expect(rows.map((r) => r[0])).toEqual(expected.map((r) => r.id))
    expect(rows[0]!.slice(6, 11)).toEqual(["97123.456789012345678", "0.00000001", "BTC", "1234567.89", "USD"])
    // Every call carried the filters; the walk went page by page to the end.
    expect(calls.length).toBe(Math.ceil(expected.length / 500))
    expect(calls.every((q) => q.side === "BUY" && q.market === "BTCUSD" && q.limit === 500)).toBe(true)
  })

  it("exports all 1,234 rows without filters, keeping text safe for spreadsheets", async () => {
    const [, ...rows] = parseCsv(await (await call("admin", "")).text())
    expect(rows).toHaveLength(1234)
    const byId = new Map(rows.map((r) => [r[0], r]))
    expect(byId.get(ROWS[7]!.id)![12]).toBe("'=cmd|'/c calc'!A1")
    expect(byId.get(ROWS[1]!.id)![17]).toBe('{"note":"says \\"hi\\", then\\nleaves"}')
  })

  it("refuses a viewer, bad filters and paging parameters, and answers a failing first page as a problem", async () => {
    expect((await call("viewer", "")).status).toBe(403)
    const bad = await call("support", "?side=HOLD&created_at.begin=yesterday")
    expect(bad.status).toBe(400)
    expect(((await bad.json()) as { meta: { fields: Record<string, string> } }).meta.fields).toMatchObject({
      side: "must be BUY or SELL",
      "created_at.begin": "must be an RFC 3339 date-time",
    })
    expect((await call("support", "?page_cursor=abc")).status).toBe(400)
    const failing = await call("support", "", "profile-2")
    expect(failing.status).toBe(500)
    expect(failing.headers.get("content-type")).toBe("application/problem+json")
  })
})
