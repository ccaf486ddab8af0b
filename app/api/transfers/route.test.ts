import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { NextRequest } from "next/server"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Role } from "@/lib/auth/roles"
import type { ConsoleRuntime } from "@/lib/console/runtime"
import type { Transfer, TransferPage } from "@/lib/schemas/transfer"
import { parseCsv } from "@/test/csv"
import { sessionCookie } from "@/test/session"

// The transfer routes through their real modules and real sessions, against the embedded
// sandbox in process on a PGlite folder of this file's own.
const dataDir = mkdtempSync(path.join(tmpdir(), "console-transfers-"))
const SECRET = "transfer-route-tests-secret-0123456789-abcdef"
process.env.DATA_DIR = dataDir
process.env.NEXTAUTH_SECRET = SECRET
process.env.LOG_LEVEL = "silent"

type Handler = (req: NextRequest, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>
let runtime: ConsoleRuntime
let list: Handler
let one: Handler
let exportCsv: Handler
let treasury: string
let other: string
let usd: string
let btc: string
let otherUsd: string
let since: string

async function call(handler: Handler, role: Role | null, url: string, params: Record<string, string> = {}): Promise<Response> {
  const headers = new Headers()
  if (role) headers.set("cookie", await sessionCookie(role, { secret: SECRET }))
  return handler(new NextRequest(`http://localhost${url}`, { headers }), { params: Promise.resolve(params) })
}

async function page(query: string, role: Role = "support"): Promise<TransferPage> {
  const res = await call(list, role, `/api/transfers?${query}`)
  expect(res.status).toBe(200)
  return (await res.json()) as TransferPage
}

async function problem(res: Response): Promise<{ status: number; code: string; meta?: { fields?: Record<string, string> } }> {
  expect(res.headers.get("content-type")).toBe("application/problem+json")
  return (await res.json()) as { status: number; code: string; meta?: { fields?: Record<string, string> } }
}

beforeAll(async () => {
  const { consoleRuntime } = await import("@/lib/console/runtime")
  runtime = await consoleRuntime()
  ;({ GET: list } = (await import("./route")) as unknown as { GET: Handler })
  ;({ GET: one } = (await import("./[id]/route")) as unknown as { GET: Handler })
  ;({ GET: exportCsv } = (await import("./export/route")) as unknown as { GET: Handler })
  const profiles = (await runtime.upstream.listProfiles()).items
  treasury = profiles.find((p) => p.nickname === "Treasury")!.id
  other = profiles.find((p) => p.nickname !== "Treasury")!.id
  since = new Date(Date.now() - 1000).toISOString()
  usd = (await runtime.upstream.sandboxDeposit(treasury, { asset: "USD", amount: "1250.5" })).activity_id!
  btc = (await runtime.upstream.sandboxDeposit(treasury, { asset: "BTC", amount: "0.25" })).activity_id!
  otherUsd = (await runtime.upstream.sandboxDeposit(other, { asset: "USD", amount: "3" })).activity_id!
}, 120_000)

afterAll(async () => {
  await runtime?.sandbox?.stop()
  rmSync(dataDir, { recursive: true, force: true })
})

describe("GET /api/transfers", () => {
  it("lists the service's transfers newest first, filtered by profile, type, status and date", async () => {
    const all = await page(`created_at.begin=${encodeURIComponent(since)}`)
    expect(all.items.map((t) => t.id)).toEqual([otherUsd, btc, usd])
    const ofTreasury = await page(`profile_id=${treasury}&created_at.begin=${encodeURIComponent(since)}`)
    expect(ofTreasury.items.map((t) => t.id)).toEqual([btc, usd])
    // The service takes profile or type, not both: the console applies the second itself.
    const treasuryWires = await page(`profile_id=${treasury}&type=WIRE_DEPOSIT&created_at.begin=${encodeURIComponent(since)}`)
    expect(treasuryWires.items.map((t) => t.id)).toEqual([usd])
    const crypto = await page(`type=CRYPTO_DEPOSIT`)
    expect(crypto.items.map((t) => t.id)).toContain(btc)
    expect(crypto.items.every((t) => t.type === "CRYPTO_DEPOSIT")).toBe(true)
    expect((await page(`status=FAILED&created_at.begin=${encodeURIComponent(since)}`)).items).toEqual([])
    const before = new Date(Date.parse(since) - 1).toISOString()
    expect((await page(`created_at.end=${encodeURIComponent(before)}&profile_id=${other}`)).items.map((t) => t.id)).not.toContain(otherUsd)
    const oldest = await page(`created_at.begin=${encodeURIComponent(since)}&order=ASC`)
    expect(oldest.items.map((t) => t.id)).toEqual([usd, btc, otherUsd])
  })

  it("pages with the service's cursor: every transfer once, in order", async () => {
    const seen: string[] = []
    let cursor: string | undefined
    for (let n = 0; n < 5; n++) {
      const p = await page(`created_at.begin=${encodeURIComponent(since)}&limit=2${cursor ? `&page_cursor=${encodeURIComponent(cursor)}` : ""}`)
      seen.push(...p.items.map((t) => t.id))
      cursor = p.next_page_cursor
      if (!cursor) break
    }
    expect(seen).toEqual([otherUsd, btc, usd])
  })

  it("refuses bad input with a problem naming each field, and a viewer or nobody", async () => {
    const bad = await call(list, "support", "/api/transfers?type=GIFT&status=DONE&created_at.begin=yesterday&limit=5000&colour=red")
    expect(bad.status).toBe(400)
    const body = await problem(bad)
    expect(body.code).toBe("validation_failed")
    expect(Object.keys(body.meta?.fields ?? {}).sort()).toEqual(["colour", "created_at.begin", "limit", "status", "type"])
    expect(body.meta?.fields?.limit).toBe("at most 1000")
    expect(body.meta?.fields?.status).toBe("must be one of PENDING, COMPLETED, FAILED")
    expect((await call(list, "viewer", "/api/transfers")).status).toBe(403)
    expect((await call(list, null, "/api/transfers")).status).toBe(401)
  })
})

describe("GET /api/transfers/{id}", () => {
  it("answers one transfer with its amounts, and a problem for an unknown one", async () => {
    const res = await call(one, "support", `/api/transfers/${btc}`, { id: btc })
    expect(res.status).toBe(200)
    const t = (await res.json()) as Transfer
    expect(t).toMatchObject({ id: btc, type: "CRYPTO_DEPOSIT", direction: "CREDIT", status: "COMPLETED", asset: "BTC", profile_id: treasury })
    expect(t.crypto_tx_hash).toMatch(/^[0-9a-fx]+$/)
    expect(typeof t.amount).toBe("string")
    const missing = await call(one, "support", "/api/transfers/0b1b3c9e-0000-4000-8000-000000000000", { id: "0b1b3c9e-0000-4000-8000-000000000000" })
    expect(missing.status).toBe(404)
    expect((await problem(missing)).status).toBe(404)
    expect((await call(one, "viewer", `/api/transfers/${btc}`, { id: btc })).status).toBe(403)
  })
})

describe("GET /api/transfers/export", () => {
  it("streams a CSV of the filtered transfers, amounts in the asset's places", async () => {
    const res = await call(exportCsv, "support", `/api/transfers/export?profile_id=${treasury}&created_at.begin=${encodeURIComponent(since)}`)
    expect(res.status).toBe(200)
    expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="transfers-\d{8}T\d{6}Z\.csv"$/)
    const [header, ...rows] = parseCsv(await res.text())
    expect(header!.slice(0, 10)).toEqual(["id", "created_at", "updated_at", "type", "direction", "status", "asset", "amount", "fee", "total"])
    expect(rows.map((r) => r[0])).toEqual([btc, usd])
    expect(rows[1]!.slice(6, 10)).toEqual(["USD", "1250.50", "0.00", "1250.50"])
    expect(rows[0]![13]).toMatch(/^[0-9a-fx]+$/)
    const bad = await call(exportCsv, "support", "/api/transfers/export?page_cursor=abc")
    expect(bad.status).toBe(400)
  })
})
