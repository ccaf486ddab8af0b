import { randomUUID } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { eq } from "drizzle-orm"
import { NextRequest } from "next/server"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import type { Role } from "@/lib/auth/roles"
import { createQuoteCache } from "@/lib/console/quote-cache"
import { createSoloQuoteFeed } from "@/lib/console/quote-feed"
import { rememberingSettled } from "@/lib/console/served-quotes"
import { consoleIntents, consoleServedQuotes } from "@/lib/db/schema"
import type { Quote } from "@/lib/schemas/records"
import { type ConsoleHarness, createConsoleHarness } from "@/test/console"
import { sessionCookie } from "@/test/session"

// Issue 33's third hole through the API as a browser or a script meets it: the console
// remembers the quotes GET /api/quotes served to each trader, and an execution names one
// of those, at its price, or it is refused with quote_not_current.
const SECRET = "served-quotes-tests-secret-0123456789-abcdef"
process.env.NEXTAUTH_SECRET = SECRET
const sessionDataDir = mkdtempSync(path.join(tmpdir(), "console-served-quotes-"))
process.env.DATA_DIR = sessionDataDir
process.env.LOG_LEVEL = "silent"
afterAll(() => rmSync(sessionDataDir, { recursive: true, force: true }))

const mocked = vi.hoisted((): { runtime?: unknown } => ({}))
vi.mock("@/lib/console/runtime", () => ({ consoleRuntime: () => Promise.resolve(mocked.runtime) }))

type Handler = (req: NextRequest, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>
let h: ConsoleHarness
let profileId: string
let quotesGET: Handler
let executePOST: Handler

beforeAll(async () => {
  h = await createConsoleHarness()
  afterAll(() => h.close())
  const cache = createQuoteCache({ fetchQuotes: (markets) => h.upstream.listQuotes(markets), ttlMs: 0 })
  mocked.runtime = { db: h.db, upstream: h.upstream, quotes: createSoloQuoteFeed(cache) }
  profileId = (await h.upstream.listProfiles()).items[0]!.id
  quotesGET = (await import("./route")).GET as Handler
  executePOST = (await import("@/app/api/profiles/[profileId]/quote-executions/route")).POST as Handler
})

const cookies = new Map<string, string>()
async function cookieOf(role: Role, email: string): Promise<string> {
  const key = `${role}:${email}`
  if (!cookies.has(key)) cookies.set(key, await sessionCookie(role, { secret: SECRET, email }))
  return cookies.get(key)!
}

async function quotes(role: Role, email: string): Promise<Quote[]> {
  const res = await quotesGET(new NextRequest("http://localhost/api/quotes?markets=BTCUSD", { headers: { cookie: await cookieOf(role, email) } }), {
    params: Promise.resolve({}),
  })
  expect(res.status).toBe(200)
  return ((await res.json()) as { items: Quote[] }).items
}

async function execute(email: string, body: Record<string, unknown>, role: Role = "trader"): Promise<{ status: number; body: Record<string, unknown> }> {
  const req = new NextRequest(`http://localhost/api/profiles/${profileId}/quote-executions`, {
    method: "POST",
    headers: { cookie: await cookieOf(role, email), origin: "http://localhost", "content-type": "application/json" },
    body: JSON.stringify({ ref_id: randomUUID(), ...body }),
  })
  const res = await executePOST(req, { params: Promise.resolve({ profileId }) })
  return { status: res.status, body: (await res.json()) as Record<string, unknown> }
}

describe("an execution's quote must be one the console served to its maker", () => {
  it("a random quote id with reviewed_quote.price 1.00 (SELL BTC) is refused as quote_not_current and is a refusal on the trail", async () => {
    const refused = await execute("trader@example.com", { quote_id: randomUUID(), base_amount: "0.5", reviewed_quote: { market: "BTCUSD", side: "SELL", price: "1.00" } })
    expect(refused).toMatchObject({ status: 422, body: { code: "quote_not_current", meta: { fields: { quote_id: "was not served to you by this console" } } } })
    const mine = await h.db.select().from(consoleIntents).where(eq(consoleIntents.staffEmail, "trader@example.com"))
    expect(mine.map((i) => [i.state, i.market, i.side, (i.problem as { code?: string } | null)?.code])).toEqual([["REFUSED", "BTCUSD", "SELL", "quote_not_current"]])
  })

  it("a quote served to the trader is executed at its price; the same quote reviewed at 1.00, or sent by someone it was not served to, is refused", async () => {
    const sell = (await quotes("trader", "trader@example.com")).find((q) => q.side === "SELL")!
    const lied = await execute("trader@example.com", { quote_id: sell.id, base_amount: "0.5", reviewed_quote: { market: "BTCUSD", side: "SELL", price: "1.00" } })
    expect(lied).toMatchObject({ status: 422, body: { code: "quote_not_current", meta: { fields: { reviewed_quote: "differs from the quote the console served" } } } })
    // The admin was never served it (only the trader was).
    const borrowed = await execute("admin@example.com", { quote_id: sell.id, base_amount: "0.0001" }, "admin")
    expect(borrowed).toMatchObject({ status: 422, body: { code: "quote_not_current" } })
    const placed = await execute("trader@example.com", { quote_id: sell.id, base_amount: "0.0001", reviewed_quote: { market: "BTCUSD", side: "SELL", price: sell.price } })
    expect(placed).toMatchObject({ status: 200, body: { quote_id: sell.id, price: sell.price } })
  })

  it("only traders and admins are remembered, once per quote however often they poll", async () => {
    await quotes("viewer", "viewer@example.com")
    const served = () => h.db.select().from(consoleServedQuotes).where(eq(consoleServedQuotes.staffEmail, "admin@example.com"))
    expect(await h.db.select().from(consoleServedQuotes).where(eq(consoleServedQuotes.staffEmail, "viewer@example.com"))).toEqual([])
    const first = await quotes("admin", "admin@example.com")
    const again = await quotes("admin", "admin@example.com")
    // Remembered off the request (a hung database must not hold quotes back): written by now.
    await rememberingSettled(h.db)
    const rows = await served()
    expect(new Set(rows.map((r) => r.quoteId))).toEqual(new Set([...first, ...again].map((q) => q.id)))
    expect(rows.every((r) => r.rememberUntil.getTime() >= Date.parse(first[0]!.expires_at))).toBe(true)
  })
})

describe("remembering is off the quotes' request path", () => {
  it("while the database is held, a trader's quotes still answer; an order on one sent meanwhile waits for its quote's write and is placed once the database answers", async () => {
    const email = "trader@example.com"
    // New quotes, never served to anyone: the order's quote is still being written when it is sent.
    await h.moveMarket("BTC", "1")
    const cache = createQuoteCache({ fetchQuotes: (markets) => h.upstream.listQuotes(markets), ttlMs: 60_000 })
    await cache.get(["BTCUSD", "ETHUSD"])
    const before = mocked.runtime
    mocked.runtime = { db: h.db, upstream: h.upstream, quotes: createSoloQuoteFeed(cache) }
    try {
      // The session is read (and then trusted for a moment) on a request for another market.
      await quotesGET(new NextRequest("http://localhost/api/quotes?markets=ETHUSD", { headers: { cookie: await cookieOf("trader", email) } }), { params: Promise.resolve({}) })
      await rememberingSettled(h.db)
      // The database's one connection is held by a transaction that does not end until released.
      let release: () => void = () => undefined
      const released = new Promise<void>((resolve) => (release = resolve))
      let holding: () => void = () => undefined
      const held = new Promise<void>((resolve) => (holding = resolve))
      const holder = h.db.transaction(async () => {
        holding()
        await released
      })
      await held
      const answered = await Promise.race([
        quotes("trader", email).then((items) => ({ items })),
        new Promise<null>((resolve) => setTimeout(() => resolve(null), 10_000)),
      ])
      expect(answered).not.toBeNull()
      const sell = answered!.items.find((q) => q.side === "SELL")!
      let settled = false
      const order = execute(email, { quote_id: sell.id, base_amount: "0.0001", reviewed_quote: { market: "BTCUSD", side: "SELL", price: sell.price } }).finally(() => (settled = true))
      await new Promise((resolve) => setTimeout(resolve, 200))
      expect(settled).toBe(false)
      release()
      await holder
      expect(await order).toMatchObject({ status: 200, body: { quote_id: sell.id, price: sell.price } })
    } finally {
      mocked.runtime = before
    }
  })
})
