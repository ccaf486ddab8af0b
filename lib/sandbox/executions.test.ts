import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { type Decimal, roundDown, roundUp, toDecimal } from "@/lib/money"
import { and, eq } from "drizzle-orm"
import { sandboxBalances, sandboxQuotes } from "@/lib/db/schema"
import { log } from "@/lib/log"
import { createSandbox } from "@/lib/sandbox/index"
import { QUOTE_RETENTION_MS } from "@/lib/sandbox/quotes"
import {
  TEST_CONFIG,
  type TestSandbox,
  type WireQuoteBody,
  balanceOf,
  quoteFor,
  startTestSandbox,
} from "@/test/sandbox"
import { testDrivers } from "@/test/db"

interface Execution {
  id: string
  profile_id: string
  quote_id: string
  ref_id?: string
  status: "CREATED" | "SETTLED"
  market: string
  side: "BUY" | "SELL"
  price: string
  base_amount: string
  base_asset: string
  quote_amount: string
  quote_asset: string
  created_at: string
  settled_at?: string
  metadata?: Record<string, string>
  recipient_profile_id?: string
}
interface Problem {
  type: string
  title: string
  status: number
  detail?: string
  meta?: Record<string, unknown>
}
/** A create's answer: the execution, or a problem (the tests look at whichever came). */
type Answer = Omit<Execution, "status"> & Omit<Problem, "status"> & { status: string | number }
interface Page {
  total_count: number
  items: Execution[]
  next_page_cursor?: string
}

describe.each(testDrivers())("quote executions on %s", (driver) => {
  let t: TestSandbox
  beforeAll(async () => {
    t = await startTestSandbox(driver)
  })
  afterAll(async () => {
    await t?.close()
  })

  const execute = (profileId: string, body: unknown) =>
    t.client.request<Answer>("POST", `/v2/profiles/${profileId}/quote-executions`, { body })
  const getExecution = (profileId: string, id: string) =>
    t.client.request<Execution>("GET", `/v2/profiles/${profileId}/quote-executions/${id}`)

  describe("quotes", () => {
    it("quotes every market on both sides, BUY above SELL, held for the quote TTL", async () => {
      const { status, body } = await t.client.request<{ items: WireQuoteBody[] }>("GET", "/v2/quotes")
      expect(status).toBe(200)
      expect(body.items).toHaveLength(14 * 2)
      for (const market of new Set(body.items.map((q) => q.market))) {
        const buy = body.items.find((q) => q.market === market && q.side === "BUY")!
        const sell = body.items.find((q) => q.market === market && q.side === "SELL")!
        expect(toDecimal(buy.price).gt(toDecimal(sell.price))).toBe(true)
        expect(Date.parse(buy.expires_at) - Date.parse(buy.created_at)).toBe(TEST_CONFIG.quoteTtlMs)
      }
    })

    it("prices EUR and SGD markets as crosses of the USD prices", async () => {
      const { body } = await t.client.request<{ items: WireQuoteBody[] }>(
        "GET",
        "/v2/quotes?markets=BTCUSD&markets=BTCEUR,BTCSGD",
      )
      const sell = (m: string) => toDecimal(body.items.find((q) => q.market === m && q.side === "SELL")!.price)
      // EUR is worth more than a dollar and SGD less, so BTC costs fewer euros and more SGD.
      expect(sell("BTCEUR").lt(sell("BTCUSD"))).toBe(true)
      expect(sell("BTCSGD").gt(sell("BTCUSD"))).toBe(true)
      expect(sell("BTCUSD").div(sell("BTCEUR")).minus("1.16").abs().lt("0.01")).toBe(true)
    })

    it("gives the same quote within a second and a new one a second later", async () => {
      // A frozen clock, 100 ms into a second: a running one may cross a second between two
      // requests on a busy machine, and then the second request rightly gets a new quote.
      t.clock.freeze()
      try {
        t.clock.advance(1000 - (t.clock.now() % 1000) + 100)
        const first = await quoteFor(t.client, "ETHUSD", "BUY")
        t.clock.advance(800)
        const again = await quoteFor(t.client, "ETHUSD", "BUY")
        expect(again.id).toBe(first.id)
        t.clock.advance(1000)
        const next = await quoteFor(t.client, "ETHUSD", "BUY")
        expect(next.id).not.toBe(first.id)
      } finally {
        t.clock.thaw()
      }
    })

    it("never serves an expired quote: with a hold time under a second, a new quote every hold time", async () => {
      await t.client.request("PUT", "/admin/faults", { body: { quote_ttl_ms: 150 } })
      t.clock.freeze()
      try {
        // 100 ms into a second, so the next steps stay inside that second.
        t.clock.advance(1000 - (t.clock.now() % 1000) + 100)
        const first = await quoteFor(t.client, "BCHUSD", "SELL")
        t.clock.advance(200)
        const next = await quoteFor(t.client, "BCHUSD", "SELL")
        expect(next.id).not.toBe(first.id)
        expect(Date.parse(next.expires_at)).toBeGreaterThan(t.clock.now())
        expect((await quoteFor(t.client, "BCHUSD", "SELL")).id).toBe(next.id)
      } finally {
        t.clock.thaw()
        await t.client.request("PUT", "/admin/faults", { body: { quote_ttl_ms: TEST_CONFIG.quoteTtlMs } })
      }
      t.clock.advance(1000)
    })

    it("refuses an unknown market with 400 naming it", async () => {
      const { status, body } = await t.client.request<Problem>("GET", "/v2/quotes?markets=BTCUSD&markets=DOGEJPY")
      expect(status).toBe(400)
      expect((body.meta?.fields as Record<string, string>).markets).toContain("DOGEJPY")
    })
  })

  describe("validation: 400 with every offending field in meta.fields", () => {
    let quote: WireQuoteBody
    beforeAll(async () => {
      quote = await quoteFor(t.client, "BTCUSD", "BUY")
    })
    const long = "k".repeat(101)
    const cases: [string, (q: string) => unknown, Record<string, string | RegExp>][] = [
      ["9-decimal base_amount", (q) => ({ quote_id: q, base_amount: "0.123456789" }), { base_amount: "at most 8 decimals" }],
      ["3-decimal quote_amount", (q) => ({ quote_id: q, quote_amount: "10.001" }), { quote_amount: "at most 2 decimals" }],
      [
        "both amounts",
        (q) => ({ quote_id: q, base_amount: "0.1", quote_amount: "10.00" }),
        { base_amount: /only one/, quote_amount: /only one/ },
      ],
      ["neither amount", (q) => ({ quote_id: q }), { base_amount: /give base_amount or quote_amount/, quote_amount: /give/ }],
      ["non-numeric amount", (q) => ({ quote_id: q, base_amount: "1e5" }), { base_amount: /must be a number/ }],
      ["negative amount", (q) => ({ quote_id: q, quote_amount: "-5.00" }), { quote_amount: "must be more than 0" }],
      ["zero amount", (q) => ({ quote_id: q, base_amount: "0.00" }), { base_amount: "must be more than 0" }],
      ["amount as a JSON number", (q) => ({ quote_id: q, base_amount: 0.5 }), { base_amount: /written as text/ }],
      // The service's pattern ^[0-9]*\.?[0-9]+$ has no room for spaces: never trimmed into a valid amount.
      ["amount with spaces around it", (q) => ({ quote_id: q, quote_amount: " 10.00 " }), { quote_amount: "must be a number like 12.34, without spaces around it" }],
      ["256-character ref_id", (q) => ({ quote_id: q, base_amount: "0.1", ref_id: "r".repeat(256) }), { ref_id: "at most 255 characters" }],
      ["empty ref_id", (q) => ({ quote_id: q, base_amount: "0.1", ref_id: "" }), { ref_id: "must not be empty" }],
      [
        "7 metadata pairs",
        (q) => ({ quote_id: q, base_amount: "0.1", metadata: Object.fromEntries([1, 2, 3, 4, 5, 6, 7].map((i) => [`k${i}`, "v"])) }),
        { metadata: /at most 6 pairs/ },
      ],
      ["101-character metadata key", (q) => ({ quote_id: q, base_amount: "0.1", metadata: { [long]: "v" } }), { metadata: /keys are at most 100/ }],
      ["101-character metadata value", (q) => ({ quote_id: q, base_amount: "0.1", metadata: { k: long } }), { metadata: /values are at most 100/ }],
      ["non-string metadata value", (q) => ({ quote_id: q, base_amount: "0.1", metadata: { k: 5 } }), { metadata: /values must be strings/ }],
      ["NUL in a metadata value", (q) => ({ quote_id: q, base_amount: "0.1", metadata: { k: "a\u0000" } }), { metadata: /must not contain NUL/ }],
      ["missing quote_id", () => ({ base_amount: "0.1" }), { quote_id: "is required" }],
      ["unknown field", (q) => ({ quote_id: q, base_amount: "0.1", price: "1" }), { price: "is not a known field" }],
      [
        "several problems at once",
        () => ({ base_amount: "1.123456789", metadata: { k: 1 } }),
        { quote_id: "is required", base_amount: "at most 8 decimals", metadata: /strings/ },
      ],
      // The amount rule is a rule of the whole body: it is reported beside the fields' type errors.
      [
        "an empty body",
        () => ({}),
        { quote_id: "is required", base_amount: "give base_amount or quote_amount", quote_amount: "give base_amount or quote_amount" },
      ],
      [
        "a numeric quote_id with both amounts",
        () => ({ quote_id: 5, base_amount: "1", quote_amount: "1" }),
        { quote_id: "must be text", base_amount: /only one/, quote_amount: /only one/ },
      ],
      [
        "null metadata and no amount",
        (q) => ({ quote_id: q, metadata: null }),
        { metadata: /must be an object/, base_amount: /give base_amount/, quote_amount: /give base_amount/ },
      ],
    ]
    it.each(cases)("%s", async (_name, body, fields) => {
      const { status, body: problem } = await execute(t.profiles.treasury, body(quote.id))
      expect(status).toBe(400)
      expect(problem.type).toBe("about:blank")
      expect(problem.title).toBe("Bad Request")
      const got = problem.meta?.fields as Record<string, string>
      expect(Object.keys(got).sort()).toEqual(Object.keys(fields).sort())
      for (const [field, message] of Object.entries(fields)) {
        if (typeof message === "string") expect(got[field]).toBe(message)
        else expect(got[field]).toMatch(message)
      }
    })

    it("refuses a body that is not JSON", async () => {
      const { status, body } = await execute(t.profiles.treasury, "{not json")
      expect(status).toBe(400)
      expect(body.meta?.fields).toEqual({ body: "must be valid JSON" })
    })

    it("answers 404 for an unknown quote, profile or execution", async () => {
      const unknownQuote = await execute(t.profiles.treasury, { quote_id: "3f1e0a52-0000-4000-8000-000000000000", base_amount: "0.1" })
      expect(unknownQuote.status).toBe(404)
      expect(unknownQuote.body.detail).toBe("quote not found with id 3f1e0a52-0000-4000-8000-000000000000")
      const unknownProfile = await execute("3f1e0a52-0000-4000-8000-000000000001", { quote_id: quote.id, base_amount: "0.1" })
      expect(unknownProfile.status).toBe(404)
      expect((await getExecution(t.profiles.treasury, "not-a-uuid")).status).toBe(404)
      expect((await getExecution(t.profiles.treasury, "3f1e0a52-0000-4000-8000-000000000002")).status).toBe(404)
    })
  })

  describe("amounts and rounding", () => {
    it("computes the other amount from the price, never in the client's favour", async () => {
      for (const side of ["BUY", "SELL"] as const) {
        const quote = await quoteFor(t.client, "ETHUSD", side)
        const price = toDecimal(quote.price)
        const byBase = await execute(t.profiles.treasury, { quote_id: quote.id, base_amount: "0.33333333" })
        expect(byBase.status).toBe(200)
        const gross = toDecimal("0.33333333").mul(price)
        const expectedQuote = side === "BUY" ? roundUp(gross, 2) : roundDown(gross, 2)
        expect(byBase.body.quote_amount).toBe(expectedQuote.toFixed(2))
        expect(byBase.body.base_amount).toBe("0.33333333")
        const byQuote = await execute(t.profiles.treasury, { quote_id: quote.id, quote_amount: "1000.01" })
        const base = toDecimal("1000.01").div(price)
        const expectedBase = side === "BUY" ? roundDown(base, 8) : roundUp(base, 8)
        expect(byQuote.body.base_amount).toBe(expectedBase.toFixed(8))
        expect(byQuote.body.quote_amount).toBe("1000.01")
        expect(byQuote.body.price).toBe(quote.price)
        expect(byQuote.body.side).toBe(side)
      }
    })

    it("executes one quote many times until it expires, then answers 403 Expired", async () => {
      const quote = await quoteFor(t.client, "LTCUSD", "SELL")
      expect((await execute(t.profiles.treasury, { quote_id: quote.id, base_amount: "1" })).status).toBe(200)
      expect((await execute(t.profiles.treasury, { quote_id: quote.id, base_amount: "2" })).status).toBe(200)
      t.clock.advance(TEST_CONFIG.quoteTtlMs)
      const expired = await execute(t.profiles.treasury, { quote_id: quote.id, base_amount: "1" })
      expect(expired.status).toBe(403)
      expect(expired.body).toMatchObject({
        type: "https://developer.paxos.com/docs/v2/problems/expired",
        title: "Expired",
        status: 403,
        meta: { expired_at: quote.expires_at },
      })
    })

    it("answers 403 Expired for a quote executed long after its row was pruned, and 404 for ids it never made", async () => {
      const own = await startTestSandbox(driver)
      try {
        const quote = await quoteFor(own.client, "ETHUSD", "BUY")
        const execute = (quoteId: string) =>
          own.client.request<Answer>("POST", `/v2/profiles/${own.profiles.treasury}/quote-executions`, {
            body: { quote_id: quoteId, base_amount: "0.01" },
          })
        own.clock.advance(TEST_CONFIG.quoteTtlMs + QUOTE_RETENTION_MS + 24 * 60 * 60 * 1000)
        own.client.forgetTokens() // the clock has passed the tokens' lifetime
        await quoteFor(own.client, "ETHUSD", "BUY") // a quotes call prunes
        expect(await own.database.db.select().from(sandboxQuotes).where(eq(sandboxQuotes.id, quote.id))).toEqual([])
        const expired = await execute(quote.id)
        expect(expired.status).toBe(403)
        expect(expired.body).toMatchObject({
          title: "Expired",
          detail: `quote ${quote.id} expired at ${quote.expires_at}`,
          meta: { expired_at: quote.expires_at },
        })
        expect((await execute(quote.id.toUpperCase())).body.meta).toEqual({ expired_at: quote.expires_at })
        // One changed digit, or a random UUID: not a quote the sandbox made.
        const last = quote.id.at(-1) === "0" ? "1" : "0"
        expect((await execute(`${quote.id.slice(0, -1)}${last}`)).status).toBe(404)
        expect((await execute("3f1e0a52-0000-8000-8000-000000000000")).status).toBe(404)
      } finally {
        await own.close()
      }
    })

    it("holds new quotes for a quote hold time set at runtime; a short one expires for real", async () => {
      await t.client.request("PUT", "/admin/faults", { body: { quote_ttl_ms: 150 } })
      try {
        t.clock.advance(1000) // a new second: new quotes, made with the new hold time
        const quote = await quoteFor(t.client, "LTCUSD", "BUY")
        expect(Date.parse(quote.expires_at) - Date.parse(quote.created_at)).toBe(150)
        await new Promise((resolve) => setTimeout(resolve, 200))
        const expired = await execute(t.profiles.treasury, { quote_id: quote.id, base_amount: "1" })
        expect(expired.status).toBe(403)
        expect(expired.body.meta).toEqual({ expired_at: quote.expires_at })
      } finally {
        await t.client.request("PUT", "/admin/faults", { body: { quote_ttl_ms: TEST_CONFIG.quoteTtlMs } })
      }
      t.clock.advance(1000)
    })

    it("refuses an execution above the maximum, in USD, converting EUR at the fixed rate", async () => {
      const usd = await quoteFor(t.client, "BTCUSD", "BUY")
      const over = await execute(t.profiles.treasury, { quote_id: usd.id, quote_amount: "50000.01" })
      expect(over.status).toBe(400)
      expect(over.body.detail).toBe("50000.01 amount is above the maximum 50000 USD")
      expect(over.body.meta?.fields).toHaveProperty("quote_amount")
      expect((await execute(t.profiles.treasury, { quote_id: usd.id, quote_amount: "50000.00" })).status).toBe(200)
      // 43103.45 EUR × 1.16 = 50000.002 USD: over; 43103.44 EUR = 49999.9904 USD: fine.
      const eur = await quoteFor(t.client, "BTCEUR", "BUY")
      expect((await execute(t.profiles.treasury, { quote_id: eur.id, quote_amount: "43103.45" })).status).toBe(400)
      expect((await execute(t.profiles.treasury, { quote_id: eur.id, quote_amount: "43103.44" })).status).toBe(200)
      // By base amount: the computed quote amount counts.
      const big = await execute(t.profiles.treasury, { quote_id: usd.id, base_amount: "1" })
      expect(big.status).toBe(400)
      expect(big.body.meta?.fields).toHaveProperty("base_amount")
    })

    it("rejects a quote when the market has moved more than 10% since (403 Rejected)", async () => {
      const quote = await quoteFor(t.client, "AAVEUSD", "BUY")
      const moved = await t.client.request("POST", "/admin/market-moves", { body: { asset: "AAVE", change_percent: "-12" } })
      expect(moved.status).toBe(200)
      const rejected = await execute(t.profiles.treasury, { quote_id: quote.id, base_amount: "1" })
      expect(rejected.status).toBe(403)
      expect(rejected.body).toEqual({
        type: "https://developer.paxos.com/docs/v2/problems/rejected",
        title: "Rejected",
        status: 403,
        detail: "extreme market conditions have invalidated this quote execution",
        meta: {},
      })
      t.clock.advance(1000)
      const fresh = await quoteFor(t.client, "AAVEUSD", "BUY")
      expect(toDecimal(fresh.price).lt(toDecimal(quote.price).mul("0.9"))).toBe(true)
      expect((await execute(t.profiles.treasury, { quote_id: fresh.id, base_amount: "1" })).status).toBe(200)
    })
  })

  describe("funds", () => {
    it("answers 403 Insufficient Funds with the exact meta", async () => {
      const { available } = await balanceOf(t.client, t.profiles.float, "PAXG")
      expect(available).toBe("5")
      const quote = await quoteFor(t.client, "PAXGUSD", "SELL")
      const { status, body } = await execute(t.profiles.float, { quote_id: quote.id, base_amount: "5.5" })
      expect(status).toBe(403)
      expect(body).toEqual({
        type: "https://developer.paxos.com/docs/v2/problems/insufficient-funds",
        title: "Insufficient Funds",
        status: 403,
        detail: `insufficient PAXG funds in profile ${t.profiles.float}: 5.5 needed, 5 available`,
        meta: { profile_id: t.profiles.float, asset: "PAXG", available: "5", needed: "5.5" },
      })
      const fiat = await quoteFor(t.client, "ETHSGD", "BUY")
      const sgd = await execute(t.profiles.float, { quote_id: fiat.id, quote_amount: "20000.01" })
      expect(sgd.status).toBe(403)
      expect(sgd.body.meta).toEqual({ profile_id: t.profiles.float, asset: "SGD", available: "20000.00", needed: "20000.01" })
      // Nothing moved.
      expect(await balanceOf(t.client, t.profiles.float, "PAXG")).toEqual({ asset: "PAXG", available: "5", trading: "0" })
    })

    it("keeps balances exact to the last decimal through a sequence of trades and settlement", async () => {
      const profile = t.profiles.omnibus
      const assets = ["USD", "EUR", "BTC", "ETH"] as const
      const start = Object.fromEntries(
        await Promise.all(assets.map(async (a) => [a, toDecimal((await balanceOf(t.client, profile, a)).available)] as const)),
      ) as Record<(typeof assets)[number], Decimal>

      const btcBuy = await quoteFor(t.client, "BTCUSD", "BUY")
      const ethSell = await quoteFor(t.client, "ETHUSD", "SELL")
      const ethEurBuy = await quoteFor(t.client, "ETHEUR", "BUY")
      const a = (await execute(profile, { quote_id: btcBuy.id, quote_amount: "1234.56" })).body
      const b = (await execute(profile, { quote_id: ethSell.id, base_amount: "1.23456789" })).body
      const c = (await execute(profile, { quote_id: ethEurBuy.id, base_amount: "0.5" })).body
      const d = (await execute(profile, { quote_id: btcBuy.id, base_amount: "0.00000001" })).body
      for (const e of [a, b, c, d]) expect(e.status).toBe("CREATED")

      // At CREATED: the paying side is debited and committed to `trading`; nothing credited yet.
      const usdPaid = toDecimal(a.quote_amount).plus(d.quote_amount)
      expect(await balanceOf(t.client, profile, "USD")).toEqual({
        asset: "USD",
        available: start.USD.minus(usdPaid).toFixed(2),
        trading: usdPaid.toFixed(2),
      })
      expect((await balanceOf(t.client, profile, "ETH")).available).toBe(start.ETH.minus(b.base_amount).toString())
      expect((await balanceOf(t.client, profile, "BTC")).available).toBe(start.BTC.toString())

      t.clock.advance(TEST_CONFIG.settleDelayMs)
      expect(await t.sandbox.settleDue()).toBeGreaterThanOrEqual(4)

      const expected = {
        USD: start.USD.minus(usdPaid).plus(b.quote_amount),
        EUR: start.EUR.minus(c.quote_amount),
        BTC: start.BTC.plus(a.base_amount).plus(d.base_amount),
        ETH: start.ETH.minus(b.base_amount).plus(c.base_amount),
      }
      for (const asset of assets) {
        const balance = await balanceOf(t.client, profile, asset)
        const places = asset === "USD" || asset === "EUR" ? 2 : undefined
        expect(balance.available).toBe(places ? expected[asset].toFixed(places) : expected[asset].toString())
        expect(toDecimal(balance.trading).isZero()).toBe(true)
      }
    })

    it("never lets concurrent debits take a balance below zero", async () => {
      const quote = await quoteFor(t.client, "LINKUSD", "SELL")
      // 800 LINK: of ten concurrent sales of 300, exactly two fit.
      const results = await Promise.all(
        Array.from({ length: 10 }, () => execute(t.profiles.float, { quote_id: quote.id, base_amount: "300" })),
      )
      expect(results.filter((r) => r.status === 200)).toHaveLength(2)
      expect(results.filter((r) => r.status === 403 && r.body.title === "Insufficient Funds")).toHaveLength(8)
      expect(await balanceOf(t.client, t.profiles.float, "LINK")).toEqual({ asset: "LINK", available: "200", trading: "600" })
    })
  })

  describe("ref_id", () => {
    it("answers a repeated ref_id with 409 Already Exists carrying the record, even after the quote expired", async () => {
      const quote = await quoteFor(t.client, "BTCUSD", "SELL")
      const body = { quote_id: quote.id, base_amount: "0.01", ref_id: "ref-409", metadata: { desk: "emea" } }
      const first = await execute(t.profiles.treasury, body)
      expect(first.status).toBe(200)
      expect(first.body.ref_id).toBe("ref-409")
      expect(first.body.metadata).toEqual({ desk: "emea" })
      const again = await execute(t.profiles.treasury, body)
      expect(again.status).toBe(409)
      expect(again.body).toMatchObject({
        type: "https://developer.paxos.com/docs/v2/problems/already-exists",
        title: "Already Exists",
        detail: "quote execution already exists with ref_id 'ref-409'",
      })
      expect(again.body.meta?.existing).toEqual(first.body)
      t.clock.advance(TEST_CONFIG.quoteTtlMs)
      expect((await execute(t.profiles.treasury, body)).status).toBe(409)
      // ref_id is unique per profile: another profile may use it.
      const other = await quoteFor(t.client, "BTCUSD", "SELL")
      expect((await execute(t.profiles.omnibus, { ...body, quote_id: other.id })).status).toBe(200)
    })

    it("keeps any ref_id exactly as sent: the 409 carries the very same ref_id", async () => {
      const quote = await quoteFor(t.client, "BTCUSD", "SELL")
      const refId = ` desk 7/order #42 — ünïcödé ${"x".repeat(200)} `
      const body = { quote_id: quote.id, base_amount: "0.001", ref_id: refId }
      const first = await execute(t.profiles.treasury, body)
      expect(first.status).toBe(200)
      expect(first.body.ref_id).toBe(refId)
      expect((await getExecution(t.profiles.treasury, first.body.id)).body.ref_id).toBe(refId)
      const again = await execute(t.profiles.treasury, body)
      expect(again.status).toBe(409)
      expect((again.body.meta?.existing as Execution).ref_id).toBe(refId)
      // Not trimmed on the way in: the trimmed text is another ref_id.
      const trimmed = await execute(t.profiles.treasury, { ...body, ref_id: refId.trim() })
      expect(trimmed.status).toBe(200)
      expect(trimmed.body.ref_id).toBe(refId.trim())
      const longest = await execute(t.profiles.treasury, { ...body, ref_id: "r".repeat(255) })
      expect(longest.status).toBe(200)
    })

    it("turns 50 concurrent creates with one ref_id into exactly one record and 49 × 409", async () => {
      const quote = await quoteFor(t.client, "UNIUSD", "BUY")
      const before = await balanceOf(t.client, t.profiles.treasury, "USD")
      const body = { quote_id: quote.id, quote_amount: "10.00", ref_id: "ref-race-50" }
      const results = await Promise.all(Array.from({ length: 50 }, () => execute(t.profiles.treasury, body)))
      const created = results.filter((r) => r.status === 200)
      const conflicts = results.filter((r) => r.status === 409)
      expect(created).toHaveLength(1)
      expect(conflicts).toHaveLength(49)
      for (const conflict of conflicts) expect((conflict.body.meta?.existing as Execution).id).toBe(created[0]!.body.id)
      const after = await balanceOf(t.client, t.profiles.treasury, "USD")
      expect(toDecimal(before.available).minus(after.available).toFixed(2)).toBe("10.00")
    })
  })

  describe("settlement", () => {
    it("moves CREATED to SETTLED after the settle delay, setting settled_at", async () => {
      const quote = await quoteFor(t.client, "BCHUSD", "BUY")
      const { body: created } = await execute(t.profiles.treasury, { quote_id: quote.id, base_amount: "0.5" })
      expect(created.status).toBe("CREATED")
      expect(created.settled_at).toBeUndefined()
      await t.sandbox.settleDue()
      expect((await getExecution(t.profiles.treasury, created.id)).body.status).toBe("CREATED")
      t.clock.advance(TEST_CONFIG.settleDelayMs)
      await t.sandbox.settleDue()
      const { body: settled } = await getExecution(t.profiles.treasury, created.id)
      expect(settled.status).toBe("SETTLED")
      expect(Date.parse(settled.settled_at!)).toBeGreaterThanOrEqual(Date.parse(created.created_at))
      expect({ ...settled, status: "CREATED", settled_at: undefined }).toEqual({ ...created, settled_at: undefined })
    })

    it("credits the recipient profile on settlement when one is named", async () => {
      const before = await balanceOf(t.client, t.profiles.float, "ETH")
      const quote = await quoteFor(t.client, "ETHUSD", "BUY")
      const { body: created } = await execute(t.profiles.treasury, {
        quote_id: quote.id,
        base_amount: "0.25",
        recipient_profile_id: t.profiles.float,
      })
      expect(created.recipient_profile_id).toBe(t.profiles.float)
      t.clock.advance(TEST_CONFIG.settleDelayMs)
      await t.sandbox.settleDue()
      expect((await balanceOf(t.client, t.profiles.float, "ETH")).available).toBe(toDecimal(before.available).plus("0.25").toString())
      const unknown = await execute(t.profiles.treasury, {
        quote_id: quote.id,
        base_amount: "0.25",
        recipient_profile_id: "3f1e0a52-0000-4000-8000-000000000009",
      })
      expect(unknown.status).toBe(404)
    })

    it("applies a settle delay changed at runtime, 0 included", async () => {
      await t.client.request("PUT", "/admin/faults", { body: { settle_delay_ms: 0 } })
      const quote = await quoteFor(t.client, "BCHUSD", "SELL")
      const { body: created } = await execute(t.profiles.treasury, { quote_id: quote.id, base_amount: "0.5" })
      await t.sandbox.settleDue()
      expect((await getExecution(t.profiles.treasury, created.id)).body.status).toBe("SETTLED")
      await t.client.request("PUT", "/admin/faults", { body: { settle_delay_ms: TEST_CONFIG.settleDelayMs } })
    })

    it("settles the records due after one whose settlement keeps failing, and that one once it can", async () => {
      const own = await startTestSandbox(driver)
      const logged = vi.spyOn(log, "error").mockImplementation(() => undefined)
      try {
        const run = (profileId: string, quoteId: string) =>
          own.client.request<Execution>("POST", `/v2/profiles/${profileId}/quote-executions`, {
            body: { quote_id: quoteId, quote_amount: "100.00" },
          })
        const quote = await quoteFor(own.client, "BTCUSD", "BUY")
        const { body: stuck } = await run(own.profiles.treasury, quote.id)
        own.clock.advance(10)
        const { body: later } = await run(own.profiles.omnibus, quote.id)
        // The first one's USD left `trading` behind its back: releasing it would go below zero.
        const treasuryUsd = and(eq(sandboxBalances.profileId, own.profiles.treasury), eq(sandboxBalances.asset, "USD"))
        await own.database.db.update(sandboxBalances).set({ trading: "0" }).where(treasuryUsd)
        own.clock.advance(TEST_CONFIG.settleDelayMs)
        expect(await own.sandbox.settleDue()).toBe(1)
        const status = async (profileId: string, id: string) =>
          (await own.client.request<Execution>("GET", `/v2/profiles/${profileId}/quote-executions/${id}`)).body.status
        expect(await status(own.profiles.treasury, stuck.id)).toBe("CREATED")
        expect(await status(own.profiles.omnibus, later.id)).toBe("SETTLED")
        expect(logged).toHaveBeenCalledWith("sandbox.settlement_failed", {
          error: expect.stringContaining(`settling ${stuck.id} failed`) as string,
        })
        // Once it can settle, the next pass settles it.
        await own.database.db.update(sandboxBalances).set({ trading: "100.00" }).where(treasuryUsd)
        expect(await own.sandbox.settleDue()).toBe(1)
        expect(await status(own.profiles.treasury, stuck.id)).toBe("SETTLED")
      } finally {
        logged.mockRestore()
        await own.close()
      }
    })

    it("resumes pending settlements after a restart, from the database", async () => {
      const quote = await quoteFor(t.client, "ETHUSD", "BUY")
      const { body: created } = await execute(t.profiles.treasury, { quote_id: quote.id, base_amount: "0.1" })
      // A new sandbox on the same database, as after a restart; its worker finds the record.
      const restarted = createSandbox({ db: t.database.db, config: TEST_CONFIG, now: t.clock.date })
      try {
        t.clock.advance(TEST_CONFIG.settleDelayMs)
        restarted.startWorkers()
        const deadline = Date.now() + 5000
        let status = created.status
        while (status !== "SETTLED" && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 100))
          status = (await getExecution(t.profiles.treasury, created.id)).body.status
        }
        expect(status).toBe("SETTLED")
      } finally {
        await restarted.stop()
      }
    })
  })

  describe("listing", () => {
    it("pages through 250 records with a cursor, each exactly once, in both orders", async () => {
      const profile = t.profiles.treasury
      let quote = await quoteFor(t.client, "USDPUSD", "SELL")
      t.clock.freeze() // every record shares one created_at: the id breaks ties
      const ids = new Set<string>()
      try {
        for (let i = 0; i < 250; i += 25) {
          const batch = await Promise.all(
            Array.from({ length: 25 }, () => execute(profile, { quote_id: quote.id, base_amount: "1" })),
          )
          for (const r of batch) {
            expect(r.status).toBe(200)
            ids.add(r.body.id)
          }
        }
      } finally {
        t.clock.thaw()
      }
      expect(ids.size).toBe(250)
      quote = await quoteFor(t.client, "USDPUSD", "SELL")
      for (const order of ["DESC", "ASC"] as const) {
        const seen: string[] = []
        let cursor: string | undefined
        let pages = 0
        do {
          const query = `market=USDPUSD&side=SELL&limit=40&order=${order}${cursor ? `&page_cursor=${encodeURIComponent(cursor)}` : ""}`
          const { status, body } = await t.client.request<Page>("GET", `/v2/profiles/${profile}/quote-executions?${query}`)
          expect(status).toBe(200)
          expect(body.total_count).toBe(250)
          seen.push(...body.items.map((e) => e.id))
          cursor = body.next_page_cursor
          pages++
        } while (cursor)
        expect(pages).toBe(7)
        expect(seen).toHaveLength(250)
        expect(new Set(seen)).toEqual(ids)
      }
    })

    it("filters by side, market, status and an inclusive created_at range, newest first by default", async () => {
      const profile = t.profiles.float
      const { body: all } = await t.client.request<Page>("GET", `/v2/profiles/${profile}/quote-executions`)
      expect(all.items.length).toBeGreaterThan(0)
      const times = all.items.map((e) => Date.parse(e.created_at))
      expect([...times].sort((x, y) => y - x)).toEqual(times)
      const one = all.items[0]!
      const exact = `created_at.begin=${one.created_at}&created_at.end=${one.created_at}`
      const { body: ranged } = await t.client.request<Page>("GET", `/v2/profiles/${profile}/quote-executions?${exact}`)
      expect(ranged.items.map((e) => e.id)).toContain(one.id)
      expect(ranged.items.every((e) => e.created_at === one.created_at)).toBe(true)
      // The two LINK sales of the concurrency test, settled since.
      const { body: sells } = await t.client.request<Page>(
        "GET",
        `/v2/profiles/${profile}/quote-executions?side=SELL&market=LINKUSD&status=SETTLED`,
      )
      expect(sells.total_count).toBe(2)
      expect(sells.items.every((e) => e.side === "SELL" && e.market === "LINKUSD" && e.status === "SETTLED")).toBe(true)
      const { body: none } = await t.client.request<Page>(
        "GET",
        `/v2/profiles/${profile}/quote-executions?status=CREATED&market=LINKUSD`,
      )
      expect(none).toEqual({ total_count: 0, items: [] })
      const { body: buys } = await t.client.request<Page>("GET", `/v2/profiles/${profile}/quote-executions?side=BUY`)
      expect(buys.items.every((e) => e.side === "BUY")).toBe(true)
    })

    it("refuses bad list parameters with 400", async () => {
      const base = `/v2/profiles/${t.profiles.treasury}/quote-executions`
      for (const [query, field] of [
        ["limit=0", "limit"],
        ["limit=1001", "limit"],
        ["status=PENDING", "status"],
        ["order=UP", "order"],
        ["created_at.begin=yesterday", "created_at.begin"],
        ["page_cursor=bm90LWEtY3Vyc29y", "page_cursor"],
      ] as const) {
        const { status, body } = await t.client.request<Problem>("GET", `${base}?${query}`)
        expect(status, query).toBe(400)
        expect(body.meta?.fields, query).toHaveProperty(field)
      }
    })
  })
})
