import { eq } from "drizzle-orm"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { sandboxQuotes } from "@/lib/db/schema"
import { toDecimal } from "@/lib/money"
import { createSandbox } from "@/lib/sandbox/index"
import { SEED_MARKETS } from "@/lib/schemas/assets"
import { SandboxClient, TEST_CONFIG, type TestSandbox, type WireQuoteBody, startTestSandbox } from "@/test/sandbox"
import { createTestDatabase, testDrivers } from "@/test/db"

interface HistoryPage {
  total_count: number
  items: { timestamp: string; average_price: string }[]
}
interface Problem {
  status: number
  meta?: { fields?: Record<string, string> }
}
interface Ticker {
  market: string
  best_bid: { price: string; amount: string }
  best_ask: { price: string; amount: string }
  last_day: { high: string; low: string; open: string; volume: string }
  today: { high: string; low: string; open: string; volume: string }
}

const DAY_MS = 86_400_000

describe.each(testDrivers())("market data on %s", (driver) => {
  let t: TestSandbox
  beforeAll(async () => {
    t = await startTestSandbox(driver)
  })
  afterAll(async () => {
    await t?.close()
  })

  const history = (market: string, query: string) =>
    t.client.request<HistoryPage & Problem>("GET", `/v2/markets/${market}/historical-prices?${query}`)

  it("lists every market the sandbox quotes, with its assets and tick", async () => {
    const { status, body } = await t.client.request<{ markets: { market: string; base_asset: string; quote_asset: string; tick_rate: string }[] }>(
      "GET",
      "/v2/markets",
    )
    expect(status).toBe(200)
    expect(body.markets.map((m) => m.market)).toEqual([...SEED_MARKETS])
    expect(body.markets.find((m) => m.market === "BTCEUR")).toEqual({ market: "BTCEUR", base_asset: "BTC", quote_asset: "EUR", tick_rate: "0.01" })
  })

  describe("historical prices", () => {
    it.each([
      ["neither increment nor max_data_points", "", ["increment", "max_data_points"]],
      ["both increment and max_data_points", "increment=ONE_HOUR&max_data_points=10", ["increment", "max_data_points"]],
      ["an increment outside the enum", "increment=TEN_MINUTES", ["increment"]],
      ["max_data_points of zero", "max_data_points=0", ["max_data_points"]],
      ["max_data_points that is not a number", "max_data_points=ten", ["max_data_points"]],
      ["pagination.limit over 1,000", "increment=ONE_HOUR&pagination.limit=1001", ["pagination.limit"]],
      ["pagination.limit of zero", "increment=ONE_HOUR&pagination.limit=0", ["pagination.limit"]],
      ["a negative pagination.offset", "increment=ONE_HOUR&pagination.offset=-1", ["pagination.offset"]],
      ["a range.begin that is not RFC 3339", "increment=ONE_HOUR&range.begin=yesterday", ["range.begin"]],
      ["a range.end that is not RFC 3339", "increment=ONE_HOUR&range.end=2026-01-01", ["range.end"]],
      ["range.begin after range.end", "increment=ONE_HOUR&range.begin=2026-01-02T00:00:00Z&range.end=2026-01-01T00:00:00Z", ["range.begin"]],
    ])("answers 400 naming the parameter for %s", async (_name, query, named) => {
      const { status, body } = await history("BTCUSD", query)
      expect(status).toBe(400)
      expect(Object.keys(body.meta?.fields ?? {}).sort()).toEqual([...named].sort())
    })

    it("answers 400 naming the market for a market it does not have", async () => {
      const { status, body } = await history("DOGEUSD", "increment=ONE_HOUR")
      expect(status).toBe(400)
      expect(Object.keys(body.meta?.fields ?? {})).toEqual(["market"])
    })

    it("needs the exchange:historical_prices scope; the other operations are public, as at the service", async () => {
      const token = await t.client.token(["exchange:read_quote"])
      const refused = await t.client.request<Problem>("GET", "/v2/markets/BTCUSD/historical-prices?increment=ONE_HOUR", { token })
      expect(refused.status).toBe(403)
      for (const path of ["/v2/markets", "/v2/markets/BTCUSD/ticker", "/v2/all-markets/ticker", "/v2/all-markets/prices?markets=BTCUSD"]) {
        expect((await t.client.request("GET", path, { token })).status, path).toBe(200)
      }
      const scoped = await t.client.token(["exchange:historical_prices"])
      expect((await t.client.request("GET", "/v2/markets/BTCUSD/historical-prices?increment=ONE_HOUR", { token: scoped })).status).toBe(200)
      expect((await t.client.request("GET", "/v2/markets/BTCUSD/historical-prices?increment=ONE_HOUR", { token: null })).status).toBe(401)
      for (const path of ["/v2/markets", "/v2/markets/BTCUSD/ticker", "/v2/all-markets/ticker", "/v2/all-markets/prices?markets=BTCUSD"]) {
        expect((await t.client.request("GET", path, { token: null })).status, path).toBe(200)
        // A token is not looked at: even a wrong one gets the answer.
        expect((await t.client.request("GET", path, { token: "not-a-token" })).status, path).toBe(200)
      }
    })

    it("reaches back 90 days, ascending, and its last point is the mid of the quotes held now", async () => {
      t.clock.freeze()
      try {
        const { status, body } = await history("BTCUSD", "max_data_points=100")
        expect(status).toBe(200)
        // 90 days fit in 100 points at ONE_DAY: the whole days since 90 days ago, then the current mid.
        expect(body.total_count).toBe(t.clock.now() % DAY_MS === 0 ? 91 : 90)
        expect(body.items).toHaveLength(body.total_count)
        const times = body.items.map((p) => Date.parse(p.timestamp))
        expect(times[0]).toBeGreaterThanOrEqual(t.clock.now() - 90 * DAY_MS)
        for (let i = 1; i < times.length - 1; i++) expect(times[i]! - times[i - 1]!).toBe(DAY_MS)
        const last = body.items.at(-1)!
        expect(Date.parse(last.timestamp)).toBe(t.clock.now())

        const quotes = await t.client.request<{ items: WireQuoteBody[] }>("GET", "/v2/quotes?markets=BTCUSD")
        const buy = quotes.body.items.find((q) => q.side === "BUY")!
        const sell = quotes.body.items.find((q) => q.side === "SELL")!
        const [row] = await t.database.db.select().from(sandboxQuotes).where(eq(sandboxQuotes.id, buy.id))
        const mid = toDecimal(row!.mid)
        expect(toDecimal(last.average_price).eq(mid.toDecimalPlaces(4))).toBe(true)
        expect(toDecimal(last.average_price).gt(sell.price) && toDecimal(last.average_price).lt(buy.price)).toBe(true)
        // The past moves like a market, not a flat line, and stays near the price.
        const prices = body.items.map((p) => toDecimal(p.average_price))
        expect(new Set(prices.map((p) => p.toFixed(0))).size).toBeGreaterThan(20)
        for (const p of prices) expect(p.div(mid).minus(1).abs().lt("0.25")).toBe(true)
      } finally {
        t.clock.thaw()
      }
    })

    it("pages with pagination.limit (100 by default, at most 1,000) and pagination.offset", async () => {
      t.clock.freeze()
      try {
        const first = await history("ETHUSD", "increment=ONE_HOUR")
        expect(first.body.total_count).toBeGreaterThanOrEqual(90 * 24)
        expect(first.body.items).toHaveLength(100)
        const total = first.body.total_count
        const tail = await history("ETHUSD", `increment=ONE_HOUR&pagination.offset=${total - 30}&pagination.limit=1000`)
        expect(tail.body.items).toHaveLength(30)
        expect(Date.parse(tail.body.items.at(-1)!.timestamp)).toBe(t.clock.now())
        const full = await history("ETHUSD", "increment=ONE_HOUR&pagination.limit=1000")
        expect(full.body.items).toHaveLength(1000)
        expect(full.body.items.slice(0, 100)).toEqual(first.body.items)
      } finally {
        t.clock.thaw()
      }
    })

    it("with range.end, only whole increments inside the range and no current point", async () => {
      const end = new Date(Math.floor(t.clock.now() / 3_600_000) * 3_600_000 - 3_600_000)
      const begin = new Date(end.getTime() - 6 * 3_600_000)
      const { body } = await history("LTCUSD", `increment=ONE_HOUR&range.begin=${begin.toISOString()}&range.end=${end.toISOString()}`)
      expect(body.items.map((p) => p.timestamp)).toEqual(
        Array.from({ length: 6 }, (_, i) => new Date(begin.getTime() + i * 3_600_000).toISOString()),
      )
    })

    it("is the same on every run for a seed, and differs for another seed", async () => {
      const at = Date.parse("2026-03-01T12:00:00.000Z")
      const run = async (seed: number) => {
        const database = await createTestDatabase(driver)
        const sandbox = createSandbox({
          db: database.db,
          config: { ...TEST_CONFIG, seed },
          now: () => new Date(at),
          clientId: "determinism",
          clientSecret: "test-secret-that-is-long-enough",
        })
        try {
          const client = new SandboxClient("http://sandbox.internal", (r) => sandbox.fetch(r), await sandbox.ensureClient())
          return (await client.request<HistoryPage>("GET", "/v2/markets/ETHEUR/historical-prices?increment=ONE_DAY")).body
        } finally {
          await sandbox.stop()
          await database.close()
        }
      }
      const a = await run(11)
      const b = await run(11)
      const c = await run(12)
      // 89 whole days since noon 90 days ago, then the current mid.
      expect(a.items).toHaveLength(90)
      expect(b).toEqual(a)
      expect(c.items.slice(0, 89)).not.toEqual(a.items.slice(0, 89))
      // Three fresh databases: on PGlite each start is seconds of CPU, far more on a busy machine.
    }, 180_000)
  })

  describe("tickers and prices", () => {
    it("a ticker's best bid and ask are the held SELL and BUY quotes; its day has open, high and low", async () => {
      t.clock.freeze()
      try {
        const { status, body } = await t.client.request<Ticker>("GET", "/v2/markets/PAXGUSD/ticker")
        expect(status).toBe(200)
        const quotes = await t.client.request<{ items: WireQuoteBody[] }>("GET", "/v2/quotes?markets=PAXGUSD")
        expect(body.best_ask.price).toBe(quotes.body.items.find((q) => q.side === "BUY")!.price)
        expect(body.best_bid.price).toBe(quotes.body.items.find((q) => q.side === "SELL")!.price)
        for (const day of [body.last_day, body.today]) {
          expect(toDecimal(day.low).lte(day.open) && toDecimal(day.open).lte(day.high)).toBe(true)
        }
        expect((await t.client.request<Problem>("GET", "/v2/markets/NOPEUSD/ticker")).status).toBe(400)
      } finally {
        t.clock.thaw()
      }
    })

    it("lists every market's ticker", async () => {
      const { body } = await t.client.request<{ tickers: Ticker[] }>("GET", "/v2/all-markets/ticker")
      expect(body.tickers.map((x) => x.market)).toEqual([...SEED_MARKETS])
    })

    it("lists current and yesterday's prices of the USD markets asked for, and refuses others naming markets", async () => {
      t.clock.freeze()
      try {
        const { body } = await t.client.request<{ items: { market: string; current_price: string; yesterday_price: string }[] }>(
          "GET",
          "/v2/all-markets/prices?markets=BTCUSD&markets=ETHUSD",
        )
        expect(body.items.map((p) => p.market)).toEqual(["BTCUSD", "ETHUSD"])
        const last = (await history("BTCUSD", "increment=ONE_DAY")).body.items.at(-1)!
        expect(body.items[0]!.current_price).toBe(last.average_price)
        expect(body.items[0]!.yesterday_price).not.toBe(body.items[0]!.current_price)
        for (const query of ["", "?markets=ETHEUR", "?markets=BTCUSD&markets=DOGEUSD"]) {
          const refused = await t.client.request<Problem>("GET", `/v2/all-markets/prices${query}`)
          expect(refused.status, query).toBe(400)
          expect(Object.keys(refused.body.meta?.fields ?? {})).toEqual(["markets"])
        }
      } finally {
        t.clock.thaw()
      }
    })
  })
})
