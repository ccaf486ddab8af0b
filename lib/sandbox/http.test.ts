import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { toDecimal } from "@/lib/money"
import { createSandbox } from "@/lib/sandbox/index"
import { type SandboxServer, serveSandbox } from "@/lib/sandbox/node"
import { unitDraw } from "@/lib/sandbox/random"
import {
  SandboxClient,
  TEST_CONFIG,
  type TestSandbox,
  type WireQuoteBody,
  balanceOf,
  quoteFor,
  startTestSandbox,
} from "@/test/sandbox"
import { testDrivers } from "@/test/db"

interface Problem {
  type: string
  title: string
  status: number
  detail?: string
  meta?: Record<string, unknown>
}
interface Record_ {
  id: string
  status: string
  ref_id?: string
  quote_amount?: string
}

/**
 * The sandbox over real HTTP (@hono/node-server on a free port), as curl or any client
 * other than the console sees it: a full trade and conversion, deposits, the admin API,
 * every fault kind and the rate limits.
 */
describe.each(testDrivers())("the sandbox over HTTP on %s", (driver) => {
  let t: TestSandbox
  let server: SandboxServer
  let http: SandboxClient
  beforeAll(async () => {
    t = await startTestSandbox(driver)
    server = await serveSandbox(t.sandbox, { port: 0 })
    http = new SandboxClient(server.origin, (request) => fetch(request), t.client.credentials)
  })
  afterEach(async () => {
    await http.request("PUT", "/admin/faults", { body: { rules: [], rate_limits: false } })
  })
  afterAll(async () => {
    await server?.close()
    await t?.close()
  })

  const faults = (body: unknown) => http.request<Problem>("PUT", "/admin/faults", { body })

  describe("a client's full session", () => {
    it("gets a token with Basic credentials, then trades and converts", async () => {
      const { clientId, clientSecret } = t.client.credentials
      const token = await fetch(`${server.origin}/sandbox/oauth2/token`, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString("base64")}`,
        },
        body: "grant_type=client_credentials&scope=exchange%3Aread_quote+exchange%3Awrite_quote_execution",
      })
      expect(token.status).toBe(200)
      expect(((await token.json()) as { scope: string }).scope).toBe("exchange:read_quote exchange:write_quote_execution")

      const { body: profiles } = await http.request<{ items: { id: string; nickname: string; type: string }[] }>("GET", "/v2/profiles")
      expect(profiles.items.map((p) => p.nickname)).toEqual(["Treasury", "Client omnibus", "Operations float"])
      const { body: treasury } = await http.request<{ id: string; type: string }>("GET", "/v2/profiles/default")
      expect(treasury).toMatchObject({ id: t.profiles.treasury, type: "DEFAULT" })
      const { body: balances } = await http.request<{ items: { asset: string }[] }>("GET", `/v2/profiles/${t.profiles.treasury}/balances`)
      expect(balances.items.map((b) => b.asset)).toEqual(
        expect.arrayContaining(["USD", "EUR", "SGD", "BTC", "ETH", "PAXG", "USDP", "PYUSD", "USDG"]),
      )

      const quote = await quoteFor(http, "ETHUSD", "BUY")
      const execution = await http.request<Record_>("POST", `/v2/profiles/${t.profiles.treasury}/quote-executions`, {
        body: { quote_id: quote.id, quote_amount: "2500.00", ref_id: "http-trade-1" },
      })
      expect(execution.status).toBe(200)
      const conversion = await http.request<Record_>("POST", "/v2/conversion/stablecoins", {
        body: { profile_id: t.profiles.treasury, amount: "500.00", source_asset: "USD", target_asset: "PYUSD" },
      })
      expect(conversion.body.status).toBe("CREATED")
      const cancelled = await http.request<Record_>("DELETE", `/v2/conversion/stablecoins/${conversion.body.id}`)
      expect(cancelled.body.status).toBe("CANCELLED")
      t.clock.advance(TEST_CONFIG.settleDelayMs)
      await t.sandbox.settleDue()
      const settled = await http.request<Record_>("GET", `/v2/profiles/${t.profiles.treasury}/quote-executions/${execution.body.id}`)
      expect(settled.body.status).toBe("SETTLED")
    })

    it("funds a profile with a sandbox deposit, exactly", async () => {
      const before = await balanceOf(http, t.profiles.float, "BTC")
      const { status, body } = await http.request<{ activity_id: string }>("POST", `/v2/sandbox/profiles/${t.profiles.float}/deposit`, {
        body: { asset: "BTC", amount: "0.12345678", crypto_network: "BITCOIN" },
      })
      expect(status).toBe(200)
      expect(body.activity_id).toMatch(/^[0-9a-f-]{36}$/)
      expect((await balanceOf(http, t.profiles.float, "BTC")).available).toBe(toDecimal(before.available).plus("0.12345678").toString())
      const usd = await http.request("POST", `/v2/sandbox/profiles/${t.profiles.float}/deposit`, { body: { asset: "USD", amount: "1000.10" } })
      expect(usd.status).toBe(200)
      const onSolana = await http.request("POST", `/v2/sandbox/profiles/${t.profiles.float}/deposit`, {
        body: { asset: "PYUSD", amount: "5", crypto_network: "SOLANA" },
      })
      expect(onSolana.status).toBe(200)
    })

    it("refuses malformed deposits with 400 naming the field", async () => {
      const cases: [unknown, string][] = [
        [{ asset: "BTC", amount: "0.123456789", crypto_network: "BITCOIN" }, "amount"],
        // The service's docs: always name the network of a crypto deposit, one documented for the asset.
        [{ asset: "BTC", amount: "1" }, "crypto_network"],
        [{ asset: "BTC", amount: "1", crypto_network: "ETHEREUM" }, "crypto_network"],
        [{ asset: "USDG", amount: "1", crypto_network: "BITCOIN" }, "crypto_network"],
        [{ asset: "USD", amount: "1", crypto_network: "ETHEREUM" }, "crypto_network"],
        [{ asset: "USD", amount: "1.001" }, "amount"],
        [{ asset: "USD", amount: "-1" }, "amount"],
        [{ asset: "DOGE", amount: "1" }, "asset"],
        [{ amount: "1" }, "asset"],
        [{ asset: "USD", amount: "1000000000.01" }, "amount"],
        [{ asset: "USD", amount: " 10.00 " }, "amount"],
      ]
      for (const [body, field] of cases) {
        const { status, body: problem } = await http.request<Problem>("POST", `/v2/sandbox/profiles/${t.profiles.float}/deposit`, { body })
        expect(status, JSON.stringify(body)).toBe(400)
        expect(Object.keys(problem.meta?.fields as object)).toEqual([field])
      }
      expect((await http.request("POST", "/v2/sandbox/profiles/5e0b7c1a-0000-4000-8000-000000000000/deposit", { body: { asset: "USD", amount: "1" } })).status).toBe(404)
    })

    it("filters profiles by nickname prefix and ids, and reads one balance", async () => {
      type Profiles = { items: { id: string; nickname: string }[]; next_page_cursor?: string }
      const byName = await http.request<Profiles>("GET", "/v2/profiles?nickname=client")
      expect(byName.body.items.map((p) => p.nickname)).toEqual(["Client omnibus"])
      const byIds = await http.request<Profiles>("GET", `/v2/profiles?ids=${t.profiles.float}&ids=${t.profiles.treasury}`)
      expect(byIds.body.items.map((p) => p.id).sort()).toEqual([t.profiles.float, t.profiles.treasury].sort())
      const paged = await http.request<Profiles>("GET", "/v2/profiles?limit=2")
      expect(paged.body.items).toHaveLength(2)
      const rest = await http.request<Profiles>("GET", `/v2/profiles?limit=2&page_cursor=${encodeURIComponent(paged.body.next_page_cursor!)}`)
      expect(rest.body.items.map((p) => p.nickname)).toEqual(["Operations float"])
      const one = await http.request("GET", `/v2/profiles/${t.profiles.treasury}/balances/EUR`)
      expect(one.body).toEqual(await balanceOf(http, t.profiles.treasury, "EUR"))
    })

    it("answers unknown paths with a 404 problem", async () => {
      const { status, body } = await http.request<Problem>("GET", "/v2/orders")
      expect(status).toBe(404)
      expect(body.title).toBe("Not Found")
    })
  })

  describe("admin settings", () => {
    it("reads and replaces the fault settings in exactly the documented shape", async () => {
      const example = {
        seed: 1,
        settle_delay_ms: 2000,
        rate_limits: false,
        rules: [
          { operation: "create_execution", fault: "commit_then_fail", rate: 1.0, status: 503 },
          { operation: "quotes", fault: "latency", rate: 0.5, latency_ms: 200 },
        ],
      }
      // The answer adds the quote hold time, which the console's sandbox page can change too,
      // and the settings of approval at the service, deposits and webhooks (the key itself never).
      const answer = {
        ...example,
        quote_ttl_ms: TEST_CONFIG.quoteTtlMs,
        orchestration_approval: false,
        deposit_delay_ms: 0,
        webhook_url: null,
        webhook_api_key_header: null,
        webhook_api_key_set: false,
      }
      const put = await faults(example)
      expect(put.status).toBe(200)
      expect(put.body).toEqual(answer)
      expect((await http.request("GET", "/admin/faults")).body).toEqual(answer)
      const cleared = await faults({ rules: [] })
      expect(cleared.body).toEqual({ ...answer, rules: [] })
      await faults({ seed: TEST_CONFIG.seed })
    })

    const invalid: [string, unknown, string[]][] = [
      ["unknown operation", { rules: [{ operation: "nope", fault: "error", rate: 1, status: 500 }] }, ["rules[0].operation"]],
      ["rate above 1", { rules: [{ operation: "get", fault: "error", rate: 1.5, status: 500 }] }, ["rules[0].rate"]],
      ["error without status", { rules: [{ operation: "get", fault: "error", rate: 1 }] }, ["rules[0].status"]],
      ["error with a 4xx status", { rules: [{ operation: "get", fault: "error", rate: 1, status: 404 }] }, ["rules[0].status"]],
      ["commit_then_fail on a read", { rules: [{ operation: "quotes", fault: "commit_then_fail", rate: 1, status: 503 }] }, ["rules[0].operation"]],
      // A cancel stores no new record: "commit then fail" is for the two creates only.
      ["commit_then_fail on cancel", { rules: [{ operation: "cancel", fault: "commit_then_fail", rate: 1, status: 504 }] }, ["rules[0].operation"]],
      ["latency without latency_ms", { rules: [{ operation: "get", fault: "latency", rate: 1 }] }, ["rules[0].latency_ms"]],
      ["an unknown fault", { rules: [{ operation: "get", fault: "explode", rate: 1 }] }, ["rules[0].fault"]],
      [
        "several at once",
        { seed: -1, settle_delay_ms: "5", quote_ttl_ms: 5, rate_limits: "yes", colour: "red" },
        ["colour", "quote_ttl_ms", "rate_limits", "seed", "settle_delay_ms"],
      ],
    ]
    it.each(invalid)("refuses %s with 400 naming the fields, changing nothing", async (_name, body, fields) => {
      const before = (await http.request("GET", "/admin/faults")).body
      const { status, body: problem } = await faults(body)
      expect(status).toBe(400)
      expect(Object.keys(problem.meta?.fields as object).sort()).toEqual(fields)
      expect((await http.request("GET", "/admin/faults")).body).toEqual(before)
    })

    it("keeps settings in the database across restarts; a changed configuration wins", async () => {
      const rules = [{ operation: "get", fault: "latency", rate: 0.25, latency_ms: 5 }]
      await faults({ rules, settle_delay_ms: 1234 })
      const same = createSandbox({ db: t.database.db, config: TEST_CONFIG })
      const sameClient = new SandboxClient("http://sandbox.internal", (r) => same.fetch(r), t.client.credentials)
      expect((await sameClient.request("GET", "/admin/faults")).body).toMatchObject({ rules, settle_delay_ms: 1234 })
      await same.stop()
      const changed = createSandbox({ db: t.database.db, config: { ...TEST_CONFIG, settleDelayMs: 500 } })
      const changedClient = new SandboxClient("http://sandbox.internal", (r) => changed.fetch(r), t.client.credentials)
      expect((await changedClient.request("GET", "/admin/faults")).body).toMatchObject({ rules, settle_delay_ms: 500 })
      await changed.stop()
      // Put the original configuration back (as if this test's sandbox restarted).
      const original = createSandbox({ db: t.database.db, config: TEST_CONFIG })
      await original.settleDue()
      await original.stop()
      await faults({ settle_delay_ms: TEST_CONFIG.settleDelayMs })
    })

    it("exposes the fixed configuration for the admin page", async () => {
      const { status, body } = await http.request<Record<string, unknown>>("GET", "/admin/config")
      expect(status).toBe(200)
      expect(body).toMatchObject({
        token_ttl_s: TEST_CONFIG.tokenTtlS,
        max_execution_usd: "50000",
        usd_reference_rates: { USD: "1", EUR: "1.16", SGD: "0.77" },
        reject_threshold_percent: "10",
      })
    })
  })

  describe("faults", () => {
    const timed = async <T>(work: () => Promise<T>) => {
      const started = performance.now()
      const result = await work()
      return { result, ms: performance.now() - started }
    }

    it("latency: delays the operation's answers, and only that operation's", async () => {
      await faults({ rules: [{ operation: "quotes", fault: "latency", rate: 1, latency_ms: 3000 }] })
      // Sent together: the other operation is answered while the delayed one still waits
      // (an order, not a duration, so a busy machine cannot make it fail).
      const finished: string[] = []
      const [delayed] = await Promise.all([
        timed(() => http.request("GET", "/v2/quotes?markets=BTCUSD")).then((answer) => (finished.push("quotes"), answer)),
        http.request("GET", "/v2/profiles").then((answer) => (finished.push("profiles"), answer)),
      ])
      expect(delayed.result.status).toBe(200)
      expect(delayed.ms).toBeGreaterThanOrEqual(2990)
      expect(finished).toEqual(["profiles", "quotes"])
    })

    it("error: answers the status as a problem, for token requests too", async () => {
      await faults({
        rules: [
          { operation: "get", fault: "error", rate: 1, status: 503 },
          { operation: "token", fault: "error", rate: 1, status: 500 },
        ],
      })
      const { status, body } = await http.request<Problem>("GET", `/v2/profiles/${t.profiles.treasury}`)
      expect(status).toBe(503)
      expect(body).toEqual({ type: "about:blank", title: "Service Unavailable", status: 503, detail: "injected fault" })
      const token = await fetch(`${server.origin}/sandbox/oauth2/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "grant_type=client_credentials",
      })
      expect(token.status).toBe(500)
      expect(token.headers.get("content-type")).toMatch(/^application\/problem\+json/)
    })

    it("rate_limit: answers 429 with Retry-After", async () => {
      await faults({ rules: [{ operation: "list", fault: "rate_limit", rate: 1 }] })
      const { status, headers } = await http.request("GET", "/v2/profiles")
      expect(status).toBe(429)
      expect(headers.get("retry-after")).toBe("1")
    })

    it("hang: no answer until the caller gives up, over HTTP and in process", async () => {
      await faults({ rules: [{ operation: "get", fault: "hang", rate: 1 }] })
      const url = `/v2/profiles/${t.profiles.treasury}`
      const overHttp = await timed(() =>
        http.request("GET", url, { signal: AbortSignal.timeout(300) }).then(
          () => "answered",
          (error: unknown) => (error instanceof Error ? error.name : "?"),
        ),
      )
      expect(overHttp.result).toBe("TimeoutError")
      expect(overHttp.ms).toBeGreaterThanOrEqual(290)
      const inProcess = await timed(() =>
        t.client.request("GET", url, { signal: AbortSignal.timeout(200) }).then(
          () => "answered",
          (error: unknown) => (error instanceof Error ? error.name : "?"),
        ),
      )
      expect(inProcess.result).toBe("TimeoutError")
    })

    it("commit_then_fail with a status: the execution is stored, the answer is 503, a retry gets 409", async () => {
      await faults({ rules: [{ operation: "create_execution", fault: "commit_then_fail", rate: 1, status: 503 }] })
      const quote = await quoteFor(http, "BTCUSD", "SELL")
      const body = { quote_id: quote.id, base_amount: "0.001", ref_id: "ctf-status" }
      const path = `/v2/profiles/${t.profiles.treasury}/quote-executions`
      const first = await http.request<Problem>("POST", path, { body })
      expect(first.status).toBe(503)
      const retry = await http.request<Problem>("POST", path, { body })
      expect(retry.status).toBe(409)
      const existing = retry.body.meta?.existing as Record_
      expect(existing.ref_id).toBe("ctf-status")
      const { body: listed } = await http.request<{ items: Record_[] }>("GET", `${path}?market=BTCUSD&limit=1000`)
      expect(listed.items.filter((e) => e.ref_id === "ctf-status")).toHaveLength(1)
      // A request that stores nothing new is not failed: a 400 stays a 400.
      expect((await http.request("POST", path, { body: { quote_id: quote.id } })).status).toBe(400)
    })

    it("commit_then_fail with drop: the conversion is stored and the connection closes without a response", async () => {
      await faults({ rules: [{ operation: "create_conversion", fault: "commit_then_fail", rate: 1, status: "drop" }] })
      const body = { profile_id: t.profiles.treasury, amount: "9.99", source_asset: "USD", target_asset: "USDP", ref_id: "ctf-drop" }
      const overHttp = await http.request("POST", "/v2/conversion/stablecoins", { body }).then(
        () => null,
        (error: unknown) => error,
      )
      expect(overHttp).toBeInstanceOf(TypeError)
      const { body: listed } = await http.request<{ items: Record_[] }>("GET", "/v2/conversion/stablecoins?ref_id=ctf-drop")
      expect(listed.items).toHaveLength(1)
      expect((await http.request("POST", "/v2/conversion/stablecoins", { body })).status).toBe(409)

      // In process, the same fault is a body that fails to read with a TypeError, like fetch's.
      const token = await t.client.token()
      const response = await t.sandbox.fetch(
        new Request("http://sandbox.internal/sandbox/v2/conversion/stablecoins", {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({ ...body, ref_id: "ctf-drop-2" }),
        }),
      )
      await expect(response.text()).rejects.toBeInstanceOf(TypeError)
      expect((await http.request<{ items: Record_[] }>("GET", "/v2/conversion/stablecoins?ref_id=ctf-drop-2")).body.items).toHaveLength(1)
    })

    it("applies after the scope check: a token without the scope gets its 403 and draws no fault", async () => {
      await faults({ seed: 42, rules: [{ operation: "get", fault: "error", rate: 0.5, status: 500 }] })
      const unscoped = await http.token(["exchange:read_quote"])
      const statuses: number[] = []
      for (let n = 0; n < 8; n++) {
        const refused = await http.request<Problem>("GET", `/v2/profiles/${t.profiles.float}`, { token: unscoped })
        expect(refused.status).toBe(403)
        expect(refused.body.detail).toMatch(/^insufficient scopes/)
        statuses.push((await http.request("GET", `/v2/profiles/${t.profiles.float}`)).status)
      }
      // The scoped requests alone make the sequence: the n-th of them draws n.
      expect(statuses).toEqual(Array.from({ length: 8 }, (_, n) => (unitDraw("fault", 42, "get", 0, n) < 0.5 ? 500 : 200)))
      await faults({ seed: TEST_CONFIG.seed })
    })

    it("is deterministic under the seed: the n-th request fires when hash(seed, operation, rule, n) < rate", async () => {
      const settings = { seed: 42, rules: [{ operation: "get", fault: "error", rate: 0.5, status: 500 }] }
      const run = async () => {
        await faults(settings) // every PUT restarts the request count
        const statuses: number[] = []
        for (let n = 0; n < 16; n++) statuses.push((await http.request("GET", `/v2/profiles/${t.profiles.float}`)).status)
        return statuses
      }
      const first = await run()
      expect(await run()).toEqual(first)
      const expected = Array.from({ length: 16 }, (_, n) => (unitDraw("fault", 42, "get", 0, n) < 0.5 ? 500 : 200))
      expect(first).toEqual(expected)
      expect(first).toContain(500)
      expect(first).toContain(200)
      await faults({ seed: TEST_CONFIG.seed })
    })
  })

  describe("rate limits", () => {
    it("are off by default and, when on, answer 429 with Retry-After per bucket", async () => {
      const path = `/v2/profiles/${t.profiles.treasury}/quote-executions?limit=1`
      const burst = async (n: number, send: () => Promise<{ status: number; headers: Headers }>) => Promise.all(Array.from({ length: n }, send))
      expect((await burst(15, () => http.request("GET", path))).every((r) => r.status === 200)).toBe(true)

      await faults({ rate_limits: true })
      // The buckets refill with the sandbox's clock: stopped, a burst meets exactly the limit.
      t.clock.freeze()
      t.clock.advance(2000) // full buckets
      try {
        await limitedBursts()
      } finally {
        t.clock.thaw()
      }

      // Admin stays reachable while limited, so the limits can be turned off again.
      await faults({ rate_limits: false })
      expect((await burst(15, () => http.request("GET", path))).every((r) => r.status === 200)).toBe(true)
    })

    it("spend a client's token budget only on requests with its secret", async () => {
      await faults({ rate_limits: true })
      t.clock.freeze()
      t.clock.advance(2000) // full buckets
      try {
        const { clientId, clientSecret } = t.client.credentials
        const form = { grant_type: "client_credentials", client_id: clientId }
        // Someone who knows only the client id: refused, and then limited, on a bucket of their own.
        expect((await http.tokenRequest({ ...form, client_secret: "not-the-secret" })).status).toBe(401)
        const guessing = await http.tokenRequest({ ...form, client_secret: "still-not-the-secret" })
        expect(guessing.status).toBe(429)
        expect(guessing.headers.get("retry-after")).toBe("1")
        // The client itself still gets its one token this second.
        expect((await http.tokenRequest({ ...form, client_secret: clientSecret })).status).toBe(200)
        expect((await http.tokenRequest({ ...form, client_secret: clientSecret })).status).toBe(429)
      } finally {
        t.clock.thaw()
        await faults({ rate_limits: false })
      }
    })

    async function limitedBursts() {
      const path = `/v2/profiles/${t.profiles.treasury}/quote-executions?limit=1`
      const executions = await Promise.all(Array.from({ length: 15 }, () => http.request("GET", path)))
      const limited = executions.filter((r) => r.status === 429)
      expect(limited).toHaveLength(5)
      expect(Number(limited[0]!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
      // Other operations have their own, larger bucket.
      expect((await http.request("GET", "/v2/profiles")).status).toBe(200)

      const { clientId, clientSecret } = t.client.credentials
      const form = { grant_type: "client_credentials", client_id: clientId, client_secret: clientSecret }
      expect((await http.tokenRequest(form)).status).toBe(200)
      const second = await http.tokenRequest(form)
      expect(second.status).toBe(429)
      expect(second.headers.get("retry-after")).toBe("1")
    }
  })

  it("quotes over HTTP validate against the contract", async () => {
    const { body } = await http.request<{ items: WireQuoteBody[] }>("GET", "/v2/quotes?markets=PAXGUSD,USDPUSD")
    expect(body.items.map((q) => `${q.market}:${q.side}`)).toEqual(["PAXGUSD:BUY", "PAXGUSD:SELL", "USDPUSD:BUY", "USDPUSD:SELL"])
  })
})
