import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { toDecimal } from "@/lib/money"
import { SandboxClient, TEST_CONFIG, type TestSandbox, balanceOf, startTestSandbox } from "@/test/sandbox"
import { testDrivers } from "@/test/db"

interface Orchestration {
  id: string
  profile_id: string
  customer_id: string
  ref_id: string
  source_amount: string
  source_asset: string
  destination_asset: string
  status: string
  source: { profile: { profile_id: string } }
  destination: { profile: { profile_id: string } }
  source_transfer: { transfer_id: string; status: string }
  destination_transfer: { transfer_id: string; status: string }
  fail_reason?: { detail: string }
  identity_id?: string
  account_id?: string
  metadata?: Record<string, string>
  created_at: string
  updated_at: string
}
interface Problem {
  type: string
  title: string
  detail?: string
  meta?: Record<string, unknown>
}
type Answer = Omit<Orchestration, "status"> & Omit<Problem, "status"> & { status: string | number }
interface Page {
  orchestrations: Orchestration[]
  next_page_cursor?: string
}

const PATH = "/v2/orchestration/orchestrations"
const ZERO = "00000000-0000-0000-0000-000000000000"

/**
 * Orchestrations, the service's replacement of stablecoin conversions, profile to profile.
 * Every answer is checked against the reference's Orchestration schema (test/sandbox.ts).
 */
describe.each(testDrivers())("orchestrations on %s", (driver) => {
  let t: TestSandbox
  beforeAll(async () => {
    t = await startTestSandbox(driver, { maxConversionUsd: 10_000 })
  })
  afterEach(async () => {
    await t.client.request("PUT", "/admin/faults", { body: { rules: [] } })
  })
  afterAll(async () => {
    await t?.close()
  })

  let n = 0
  const body = (change: Record<string, unknown> = {}, profile = t.profiles.treasury) => ({
    ref_id: `orch-${++n}`,
    source_amount: "10.00",
    source_asset: "USD",
    destination_asset: "USDP",
    source: { profile: { profile_id: profile } },
    destination: { profile: { profile_id: profile } },
    ...change,
  })
  const create = (input: unknown, client = t.client) => client.request<Answer>("POST", PATH, { body: input })
  const get = (id: string) => t.client.request<Answer>("GET", `${PATH}/${id}`)
  const list = (query = "") => t.client.request<Page>("GET", `${PATH}${query ? `?${query}` : ""}`)
  const settle = async () => {
    t.clock.advance(TEST_CONFIG.settleDelayMs)
    await t.sandbox.settleDue()
  }

  it("creates one PROCESSING, debiting the source; COMPLETED after the settlement delay credits the destination", async () => {
    const profile = t.profiles.treasury
    const usd = await balanceOf(t.client, profile, "USD")
    const usdg = await balanceOf(t.client, profile, "USDG")
    const { status, body: created } = await create(
      body({ source_amount: "100.10", destination_asset: "USDG", ref_id: "orch-echo", metadata: { purpose: "payroll" } }),
    )
    expect(status).toBe(200)
    expect(created).toMatchObject({
      profile_id: profile,
      source_amount: "100.1",
      source_asset: "USD",
      destination_asset: "USDG",
      status: "PROCESSING",
      ref_id: "orch-echo",
      customer_id: t.client.credentials.clientId,
      identity_id: ZERO,
      account_id: ZERO,
      metadata: { purpose: "payroll" },
      source: { profile: { profile_id: profile } },
      destination: { profile: { profile_id: profile } },
      source_transfer: { status: "PROCESSING" },
      destination_transfer: { status: "PENDING" },
    })
    expect(created.fail_reason).toBeUndefined()
    expect(await balanceOf(t.client, profile, "USD")).toEqual({
      asset: "USD",
      available: toDecimal(usd.available).minus("100.10").toFixed(2),
      trading: toDecimal(usd.trading).plus("100.10").toFixed(2),
    })
    expect((await get(created.id)).body).toEqual(created)

    await settle()
    const { body: done } = await get(created.id)
    expect(done).toMatchObject({ status: "COMPLETED", source_transfer: { status: "COMPLETED" }, destination_transfer: { status: "COMPLETED" } })
    expect(done.updated_at > done.created_at).toBe(true)
    expect(await balanceOf(t.client, profile, "USD")).toEqual({ asset: "USD", available: toDecimal(usd.available).minus("100.10").toFixed(2), trading: usd.trading })
    expect((await balanceOf(t.client, profile, "USDG")).available).toBe(toDecimal(usdg.available).plus("100.1").toString())
  })

  it("settles to another profile through destination.profile", async () => {
    const from = t.profiles.omnibus
    const to = t.profiles.float
    const before = await balanceOf(t.client, to, "PYUSD")
    const { body: created } = await create(body({ source_amount: "7.00", destination_asset: "PYUSD", destination: { profile: { profile_id: to } } }, from))
    expect(created).toMatchObject({ profile_id: from, destination: { profile: { profile_id: to } } })
    await settle()
    expect((await balanceOf(t.client, to, "PYUSD")).available).toBe(toDecimal(before.available).plus(7).toString())
  })

  it("shares the ledger with conversions: what one spends, the other cannot", async () => {
    const profile = t.profiles.float
    // Conversions spend USDG down to at most 5000 available…
    let usdg = toDecimal((await balanceOf(t.client, profile, "USDG")).available)
    while (usdg.gt(5000)) {
      const conversion = await t.client.request<Answer>("POST", "/v2/conversion/stablecoins", {
        body: { profile_id: profile, amount: "5000.00", source_asset: "USDG", target_asset: "USD" },
      })
      expect(conversion.status).toBe(200)
      usdg = usdg.minus(5000)
    }
    // …and an orchestration cannot spend a cent more than is left.
    const rest = usdg
    const tooMuch = await create(body({ source_amount: rest.plus("0.01").toFixed(2), source_asset: "USDG", destination_asset: "USD" }, profile))
    expect(tooMuch.status).toBe(403)
    expect(tooMuch.body).toEqual({
      type: "https://developer.paxos.com/docs/v2/problems/insufficient-funds",
      title: "Insufficient Funds",
      status: 403,
      detail: `insufficient USDG funds in profile ${profile}: ${rest.plus("0.01").toString()} needed, ${rest.toString()} available`,
      meta: { profile_id: profile, asset: "USDG", available: rest.toString(), needed: rest.plus("0.01").toString() },
    })
    expect((await balanceOf(t.client, profile, "USDG")).available).toBe(rest.toString())
  })

  it("fails a created orchestration when a fail_processing rule fires: FAILED with fail_reason.detail, source refunded", async () => {
    const profile = t.profiles.omnibus
    const usd = await balanceOf(t.client, profile, "USD")
    const rule = await t.client.request("PUT", "/admin/faults", {
      body: { rules: [{ operation: "create_orchestration", fault: "fail_processing", rate: 1 }] },
    })
    expect(rule.status).toBe(200)
    const { status, body: created } = await create(body({ source_amount: "40.00" }, profile))
    expect(status).toBe(200)
    expect(created.status).toBe("PROCESSING")
    expect((await balanceOf(t.client, profile, "USD")).available).toBe(toDecimal(usd.available).minus(40).toFixed(2))
    await settle()
    const { body: failed } = await get(created.id)
    expect(failed).toMatchObject({ status: "FAILED", fail_reason: { detail: "injected fault: the destination transfer failed" } })
    expect(await balanceOf(t.client, profile, "USD")).toEqual(usd)
  })

  it("refuses fail_processing for any other operation, naming the field", async () => {
    const { status, body } = await t.client.request<Problem>("PUT", "/admin/faults", {
      body: { rules: [{ operation: "create_conversion", fault: "fail_processing", rate: 1 }] },
    })
    expect(status).toBe(400)
    expect(body.meta?.fields).toEqual({ "rules[0].operation": "fail_processing applies to create_orchestration only" })
  })

  it("commit_then_fail covers create_orchestration: the record is stored, the retry gets it back as 409", async () => {
    await t.client.request("PUT", "/admin/faults", { body: { rules: [{ operation: "create_orchestration", fault: "commit_then_fail", rate: 1, status: 503 }] } })
    const input = body({ ref_id: "orch-commit-fail" })
    expect((await create(input)).status).toBe(503)
    await t.client.request("PUT", "/admin/faults", { body: { rules: [] } })
    const again = await create(input)
    expect(again.status).toBe(409)
    expect((again.body.meta?.existing as Orchestration).ref_id).toBe("orch-commit-fail")
  })

  describe("validation", () => {
    const cases: [string, Record<string, unknown>, Record<string, string | RegExp>][] = [
      ["no ref_id (required by the service)", { ref_id: undefined }, { ref_id: "is required" }],
      ["stablecoin to stablecoin", { source_asset: "USDP", destination_asset: "PYUSD" }, { destination_asset: /stablecoin to stablecoin is not allowed/ }],
      ["USD to USD", { destination_asset: "USD" }, { destination_asset: "must differ from source_asset" }],
      ["3-decimal amount", { source_amount: "10.001" }, { source_amount: "at most 2 decimals" }],
      ["amount as a JSON number", { source_amount: 10 }, { source_amount: /written as text/ }],
      ["no source profile", { source: {} }, { source: "is required" }],
      ["a destination that is not a profile", { destination: { crypto: { address_id: "x" } } }, { destination: /is not a known field|is required/ }],
      ["the old field names", { amount: "10.00", target_asset: "USDP" }, { amount: "is not a known field", target_asset: "is not a known field" }],
      ["7 metadata pairs", { metadata: { a: "1", b: "2", c: "3", d: "4", e: "5", f: "6", g: "7" } }, { metadata: /at most 6/ }],
    ]
    it.each(cases)("refuses %s with 400 naming the field", async (_name, change, fields) => {
      const { status, body: problem } = await create(body(change))
      expect(status).toBe(400)
      const got = problem.meta?.fields as Record<string, string>
      expect(Object.keys(got).sort()).toEqual(Object.keys(fields).sort())
      for (const [field, message] of Object.entries(fields)) {
        if (typeof message === "string") expect(got[field]).toBe(message)
        else expect(got[field]).toMatch(message)
      }
    })

    it("refuses an amount above the maximum and answers 404 for unknown profiles and ids", async () => {
      const above = await create(body({ source_amount: "11000" }))
      expect(above.status).toBe(400)
      expect(above.body.meta?.fields).toEqual({ source_amount: "above the maximum 10000 USD per orchestration" })
      const unknown = "5e0b7c1a-0000-4000-8000-000000000000"
      expect((await create(body({ destination: { profile: { profile_id: unknown } } }))).status).toBe(404)
      expect((await get(unknown)).status).toBe(404)
      expect((await get("nope")).status).toBe(404)
    })
  })

  describe("ref_id", () => {
    it("answers 409 Already Exists with meta.existing for a reused ref_id, changing nothing", async () => {
      const first = await create(body({ ref_id: "orch-again" }))
      const usd = await balanceOf(t.client, t.profiles.treasury, "USD")
      const again = await create(body({ ref_id: "orch-again", source_amount: "99.00" }))
      expect(again.status).toBe(409)
      expect(again.body).toMatchObject({
        type: "https://developer.paxos.com/docs/v2/problems/already-exists",
        title: "Already Exists",
        meta: { existing: first.body },
      })
      expect(await balanceOf(t.client, t.profiles.treasury, "USD")).toEqual(usd)
    })

    it("turns 30 concurrent creates with one ref_id into one record and 29 × 409", async () => {
      const input = body({ ref_id: "orch-race", source_amount: "1.00" })
      const results = await Promise.all(Array.from({ length: 30 }, () => create(input)))
      const created = results.filter((r) => r.status === 200)
      expect(created).toHaveLength(1)
      const conflicts = results.filter((r) => r.status === 409)
      expect(conflicts).toHaveLength(29)
      for (const c of conflicts) expect((c.body.meta?.existing as Orchestration).id).toBe(created[0]!.body.id)
    })

    it("keeps ref_ids and orchestrations to the client that made them", async () => {
      const otherCreds = { clientId: "orch-second-client", clientSecret: "orch-second-client-secret-0123" }
      const { createSandbox } = await import("@/lib/sandbox/index")
      const registrar = createSandbox({ db: t.database.db, config: TEST_CONFIG, ...otherCreds })
      await registrar.ensureClient()
      await registrar.stop()
      const other = new SandboxClient("http://sandbox.internal", (r) => t.sandbox.fetch(r), otherCreds)
      const mine = await create(body({ ref_id: "orch-shared-ref" }))
      const theirs = await create(body({ ref_id: "orch-shared-ref" }), other)
      expect(theirs.status).toBe(200)
      expect((await other.request("GET", `${PATH}/${mine.body.id}`)).status).toBe(404)
      expect((await other.request<Page>("GET", PATH)).body.orchestrations.map((o) => o.id)).toEqual([theirs.body.id])
    })
  })

  describe("scopes", () => {
    it.each([
      ["POST", PATH, "orchestration:write_orchestration"],
      ["GET", PATH, "orchestration:read_orchestration"],
      ["GET", `${PATH}/5e0b7c1a-0000-4000-8000-000000000000`, "orchestration:read_orchestration"],
    ])("%s %s needs %s (403 naming found and required scopes)", async (method, path, scope) => {
      const held = method === "POST" ? "orchestration:read_orchestration" : "orchestration:write_orchestration"
      const token = await t.client.token([held])
      const { status, body: problem } = await t.client.request<Problem>(method, path, { token, ...(method === "POST" ? { body: body() } : {}) })
      expect(status).toBe(403)
      expect(problem.detail).toBe(`insufficient scopes: found [${held}], required one of [${scope}]`)
      const conversionScopes = await t.client.token(["conversion:read_conversion_stablecoin", "conversion:write_conversion_stablecoin"])
      expect((await t.client.request(method, path, { token: conversionScopes, ...(method === "POST" ? { body: body() } : {}) })).status).toBe(403)
    })
  })

  describe("listing", () => {
    it("pages with a cursor (default limit 100), newest first, each record exactly once", async () => {
      const profile = t.profiles.float
      await t.client.request("POST", `/v2/sandbox/profiles/${profile}/deposit`, { body: { asset: "USD", amount: "1000" } })
      t.clock.freeze()
      const ids = new Set<string>()
      try {
        for (let i = 0; i < 130; i += 26) {
          const batch = await Promise.all(Array.from({ length: 26 }, () => create(body({ source_amount: "1.00" }, profile))))
          for (const r of batch) ids.add(r.body.id)
        }
      } finally {
        t.clock.thaw()
      }
      expect(ids.size).toBe(130)
      const first = await list(`profile_id=${profile}`)
      expect(first.body.orchestrations).toHaveLength(100)
      expect(first.body.next_page_cursor).toBeDefined()
      const second = await list(`profile_id=${profile}&page_cursor=${encodeURIComponent(first.body.next_page_cursor!)}`)
      expect(second.body.next_page_cursor).toBeUndefined()
      const all = [...first.body.orchestrations, ...second.body.orchestrations]
      const seen = all.map((o) => o.id)
      expect(new Set(seen).size).toBe(seen.length)
      for (const id of ids) expect(seen).toContain(id)
      const times = all.map((o) => o.created_at)
      expect([...times].sort().reverse()).toEqual(times)
      const small = await list(`profile_id=${profile}&limit=2&order=ASC`)
      expect(small.body.orchestrations).toHaveLength(2)
      expect(small.body.orchestrations[0]!.created_at <= small.body.orchestrations[1]!.created_at).toBe(true)
    })

    it("filters by list filters (repeated or comma-separated), created_at bounds and orchestration_id", async () => {
      const profile = t.profiles.omnibus
      const a = (await create(body({ destination_asset: "USDG", ref_id: "orch-filter-a" }, profile))).body
      t.clock.advance(10)
      const b = (await create(body({ destination_asset: "PYUSD", ref_id: "orch-filter-b" }, profile))).body
      const fail = await t.client.request("PUT", "/admin/faults", { body: { rules: [{ operation: "create_orchestration", fault: "fail_processing", rate: 1 }] } })
      expect(fail.status).toBe(200)
      t.clock.advance(10)
      const c = (await create(body({ destination_asset: "PYUSD", ref_id: "orch-filter-c" }, profile))).body
      await settle()
      const ids = (page: { body: Page }) => page.body.orchestrations.map((o) => o.id)
      expect(ids(await list(`orchestration_id=${a.id}&orchestration_id=${c.id}`)).sort()).toEqual([a.id, c.id].sort())
      expect(ids(await list(`orchestration_id=${a.id},${b.id}&destination_asset=PYUSD`))).toEqual([b.id])
      const since = `profile_id=${profile}&created_at.gte=${a.created_at}`
      expect(ids(await list(`${since}&status=FAILED`))).toEqual([c.id])
      expect(ids(await list(`${since}&status=COMPLETED&status=FAILED&destination_asset=PYUSD`))).toEqual([c.id, b.id])
      expect(ids(await list(`${since}&status=COMPLETED,FAILED&destination_asset=USDG`))).toEqual([a.id])
      expect(ids(await list(`profile_id=${profile}&created_at.gte=${b.created_at}`))).toEqual([c.id, b.id])
      expect(ids(await list(`profile_id=${profile}&created_at.gt=${b.created_at}`))).toEqual([c.id])
      expect(ids(await list(`profile_id=${profile}&created_at.eq=${b.created_at}`))).toEqual([b.id])
      expect(ids(await list(`profile_id=${profile}&created_at.lt=${b.created_at}&created_at.gte=${a.created_at}`))).toEqual([a.id])
      expect(ids(await list(`profile_id=${profile}&created_at.lte=${b.created_at}&created_at.gte=${a.created_at}`))).toEqual([b.id, a.id])
      expect(ids(await list(`orchestration_rule_id=any`))).toEqual([])
      expect(ids(await list(`profile_id=5e0b7c1a-0000-4000-8000-000000000000`))).toEqual([])
      // The conversion list's filter names are not this list's: ignored, as unknown parameters are.
      expect(ids(await list(`orchestration_id=${a.id}&created_at.begin=2999-01-01T00:00:00Z`))).toEqual([a.id])
    })

    it("refuses a limit above 1000, a bad date-time, a malformed cursor and more than 100 values of a filter", async () => {
      expect((await list("limit=1001")).status).toBe(400)
      const date = await t.client.request<Problem>("GET", `${PATH}?created_at.gte=yesterday`)
      expect(date.status).toBe(400)
      expect(date.body.meta?.fields).toEqual({ "created_at.gte": "must be an RFC 3339 date-time" })
      expect((await list("page_cursor=%%%")).status).toBe(400)
      const many = await t.client.request<Problem>("GET", `${PATH}?${Array.from({ length: 101 }, (_, i) => `status=S${i}`).join("&")}`)
      expect(many.status).toBe(400)
      expect(many.body.meta?.fields).toEqual({ status: "at most 100 values" })
    })
  })
})
