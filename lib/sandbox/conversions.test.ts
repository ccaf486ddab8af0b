import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { toDecimal } from "@/lib/money"
import { SandboxClient, TEST_CONFIG, type TestSandbox, balanceOf, startTestSandbox } from "@/test/sandbox"
import { testDrivers } from "@/test/db"

interface Conversion {
  id: string
  profile_id: string
  amount: string
  source_asset: string
  target_asset: string
  status: string
  ref_id?: string
  identity_id: string
  account_id: string
  created_at: string
  updated_at: string
  settled_at?: string
  cancelled_at?: string
  metadata?: Record<string, string>
  recipient_profile_id?: string
}
interface Problem {
  type: string
  title: string
  detail?: string
  meta?: Record<string, unknown>
}
type Answer = Omit<Conversion, "status"> & Omit<Problem, "status"> & { status: string | number }
interface Page {
  items: Conversion[]
  next_page_cursor?: string
}

const ZERO = "00000000-0000-0000-0000-000000000000"

describe.each(testDrivers())("stablecoin conversions on %s", (driver) => {
  let t: TestSandbox
  beforeAll(async () => {
    // The maximum of the service's own example: "11000 amount is above the maximum 10000 USD".
    t = await startTestSandbox(driver, { maxConversionUsd: 10_000 })
  })
  afterAll(async () => {
    await t?.close()
  })

  const convert = (body: unknown, client = t.client) => client.request<Answer>("POST", "/v2/conversion/stablecoins", { body })
  const get = (id: string) => t.client.request<Answer>("GET", `/v2/conversion/stablecoins/${id}`)
  const cancel = (id: string) => t.client.request<Answer>("DELETE", `/v2/conversion/stablecoins/${id}`)
  const list = (query = "") => t.client.request<Page>("GET", `/v2/conversion/stablecoins${query ? `?${query}` : ""}`)
  const settle = async () => {
    t.clock.advance(TEST_CONFIG.settleDelayMs)
    await t.sandbox.settleDue()
  }

  it("creates a conversion echoing the request, debiting the source at CREATED", async () => {
    const profile = t.profiles.treasury
    const usd = await balanceOf(t.client, profile, "USD")
    const usdg = await balanceOf(t.client, profile, "USDG")
    const { status, body } = await convert({
      profile_id: profile,
      amount: "100.10",
      source_asset: "USD",
      target_asset: "USDG",
      ref_id: "conv-echo",
      metadata: { purpose: "payroll" },
    })
    expect(status).toBe(200)
    expect(body).toMatchObject({
      profile_id: profile,
      amount: "100.1",
      source_asset: "USD",
      target_asset: "USDG",
      status: "CREATED",
      ref_id: "conv-echo",
      identity_id: ZERO,
      account_id: ZERO,
      metadata: { purpose: "payroll" },
    })
    expect(body.updated_at).toBe(body.created_at)
    expect(body.settled_at).toBeUndefined()
    expect(await balanceOf(t.client, profile, "USD")).toEqual({
      asset: "USD",
      available: toDecimal(usd.available).minus("100.10").toFixed(2),
      trading: toDecimal(usd.trading).plus("100.10").toFixed(2),
    })
    expect(await balanceOf(t.client, profile, "USDG")).toEqual(usdg)
    expect((await get(body.id)).body).toEqual(body)
  })

  describe("validation", () => {
    const valid = () => ({ profile_id: t.profiles.treasury, amount: "10.00", source_asset: "USD", target_asset: "USDP" })
    const cases: [string, Record<string, unknown>, Record<string, string | RegExp>][] = [
      ["stablecoin to stablecoin", { source_asset: "USDP", target_asset: "PYUSD" }, { target_asset: /stablecoin to stablecoin is not allowed/ }],
      ["USD to USD", { source_asset: "USD", target_asset: "USD" }, { target_asset: "must differ from source_asset" }],
      ["an asset that is not converted", { source_asset: "EUR" }, { source_asset: /must be one of/ }],
      ["3-decimal amount", { amount: "10.001" }, { amount: "at most 2 decimals" }],
      ["negative amount", { amount: "-10" }, { amount: "must be more than 0" }],
      ["non-numeric amount", { amount: "ten" }, { amount: /must be a number/ }],
      ["amount as a JSON number", { amount: 10 }, { amount: /written as text/ }],
      ["amount with spaces around it", { amount: " 10.00 " }, { amount: "must be a number like 12.34, without spaces around it" }],
      ["256-character ref_id", { ref_id: "r".repeat(256) }, { ref_id: "at most 255 characters" }],
      ["missing profile", { profile_id: undefined }, { profile_id: "is required" }],
      ["7 metadata pairs", { metadata: { a: "1", b: "2", c: "3", d: "4", e: "5", f: "6", g: "7" } }, { metadata: /at most 6/ }],
      ["101-character metadata value", { metadata: { k: "v".repeat(101) } }, { metadata: /at most 100/ }],
      ["non-string metadata value", { metadata: { k: true } }, { metadata: /strings/ }],
      ["unknown field", { side: "BUY" }, { side: "is not a known field" }],
    ]
    it.each(cases)("refuses %s with 400 naming the field", async (_name, change, fields) => {
      const { status, body } = await convert({ ...valid(), ...change })
      expect(status).toBe(400)
      const got = body.meta?.fields as Record<string, string>
      expect(Object.keys(got).sort()).toEqual(Object.keys(fields).sort())
      for (const [field, message] of Object.entries(fields)) {
        if (typeof message === "string") expect(got[field]).toBe(message)
        else expect(got[field]).toMatch(message)
      }
    })

    it("names the pair rule beside the missing fields (no profile_id, no amount)", async () => {
      const { status, body } = await convert({ source_asset: "USDP", target_asset: "PYUSD" })
      expect(status).toBe(400)
      expect(body.meta?.fields).toEqual({
        profile_id: "is required",
        amount: "is required",
        target_asset: "USD converts to USDP, PYUSD or USDG and back; stablecoin to stablecoin is not allowed",
      })
    })

    it("refuses an amount above the per-conversion maximum", async () => {
      const { status, body } = await convert({ ...valid(), amount: "11000" })
      expect(status).toBe(400)
      expect(body).toMatchObject({ type: "about:blank", title: "Bad Request", detail: "11000 amount is above the maximum 10000 USD" })
      expect((await convert({ ...valid(), amount: "10000.00" })).status).toBe(200)
    })

    it("answers 404 for an unknown profile or conversion", async () => {
      expect((await convert({ ...valid(), profile_id: "5e0b7c1a-0000-4000-8000-000000000000" })).status).toBe(404)
      expect((await get("5e0b7c1a-0000-4000-8000-000000000001")).status).toBe(404)
      expect((await get("nope")).status).toBe(404)
      expect((await cancel("5e0b7c1a-0000-4000-8000-000000000001")).status).toBe(404)
    })
  })

  it("answers 403 Insufficient Funds with the exact meta", async () => {
    const profile = t.profiles.float
    expect((await balanceOf(t.client, profile, "USDG")).available).toBe("25000")
    for (let i = 0; i < 2; i++) {
      expect((await convert({ profile_id: profile, amount: "9000", source_asset: "USDG", target_asset: "USD" })).status).toBe(200)
    }
    const { status, body } = await convert({ profile_id: profile, amount: "9000", source_asset: "USDG", target_asset: "USD" })
    expect(status).toBe(403)
    expect(body).toEqual({
      type: "https://developer.paxos.com/docs/v2/problems/insufficient-funds",
      title: "Insufficient Funds",
      status: 403,
      detail: `insufficient USDG funds in profile ${profile}: 9000 needed, 7000 available`,
      meta: { profile_id: profile, asset: "USDG", available: "7000", needed: "9000" },
    })
  })

  it("settles after the delay: SETTLED, settled_at and updated_at set, target credited", async () => {
    const profile = t.profiles.omnibus
    const start = { usd: await balanceOf(t.client, profile, "USD"), pyusd: await balanceOf(t.client, profile, "PYUSD") }
    const { body: created } = await convert({ profile_id: profile, amount: "2500.25", source_asset: "USD", target_asset: "PYUSD" })
    await settle()
    const { body: settled } = await get(created.id)
    expect(settled.status).toBe("SETTLED")
    expect(settled.settled_at).toBeDefined()
    expect(settled.updated_at).toBe(settled.settled_at)
    expect(Date.parse(settled.updated_at)).toBeGreaterThan(Date.parse(created.updated_at))
    expect(await balanceOf(t.client, profile, "USD")).toEqual({
      asset: "USD",
      available: toDecimal(start.usd.available).minus("2500.25").toFixed(2),
      trading: "0.00",
    })
    expect((await balanceOf(t.client, profile, "PYUSD")).available).toBe(toDecimal(start.pyusd.available).plus("2500.25").toString())
  })

  it("credits the recipient profile on settlement when one is named", async () => {
    const before = await balanceOf(t.client, t.profiles.float, "USDP")
    const { body } = await convert({
      profile_id: t.profiles.treasury,
      amount: "42.00",
      source_asset: "USD",
      target_asset: "USDP",
      recipient_profile_id: t.profiles.float,
    })
    expect(body.recipient_profile_id).toBe(t.profiles.float)
    await settle()
    expect((await balanceOf(t.client, t.profiles.float, "USDP")).available).toBe(toDecimal(before.available).plus(42).toString())
  })

  it("cancels a CREATED conversion: CANCELLED, cancelled_at set, source refunded", async () => {
    const profile = t.profiles.omnibus
    const before = await balanceOf(t.client, profile, "USDP")
    const { body: created } = await convert({ profile_id: profile, amount: "77.70", source_asset: "USDP", target_asset: "USD" })
    expect((await balanceOf(t.client, profile, "USDP")).available).toBe(toDecimal(before.available).minus("77.7").toString())
    t.clock.advance(5)
    const { status, body: cancelled } = await cancel(created.id)
    expect(status).toBe(200)
    expect(cancelled.status).toBe("CANCELLED")
    expect(cancelled.cancelled_at).toBeDefined()
    expect(cancelled.updated_at).toBe(cancelled.cancelled_at)
    expect(Date.parse(cancelled.updated_at)).toBeGreaterThan(Date.parse(created.updated_at))
    expect(await balanceOf(t.client, profile, "USDP")).toEqual(before)
    // A cancelled conversion never settles.
    await settle()
    expect((await get(created.id)).body.status).toBe("CANCELLED")
    const again = await cancel(created.id)
    expect(again.status).toBe(409)
    expect(again.body.detail).toBe(`conversion ${created.id} cannot be cancelled: its status is CANCELLED`)
  })

  it("refuses to cancel a settled conversion with 409 naming its status", async () => {
    const { body: created } = await convert({ profile_id: t.profiles.omnibus, amount: "5.00", source_asset: "USD", target_asset: "USDG" })
    await settle()
    const { status, body } = await cancel(created.id)
    expect(status).toBe(409)
    expect(body).toMatchObject({
      type: "about:blank",
      title: "Conflict",
      status: 409,
      detail: `conversion ${created.id} cannot be cancelled: its status is SETTLED`,
      meta: { status: "SETTLED" },
    })
  })

  describe("ref_id", () => {
    it("answers a repeated ref_id with 409 Already Exists carrying the record", async () => {
      const body = { profile_id: t.profiles.treasury, amount: "12.00", source_asset: "USD", target_asset: "USDP", ref_id: "conv-409" }
      const first = await convert(body)
      const again = await convert({ ...body, amount: "13.00" })
      expect(again.status).toBe(409)
      expect(again.body).toMatchObject({
        type: "https://developer.paxos.com/docs/v2/problems/already-exists",
        title: "Already Exists",
        detail: "conversion already exists with ref_id 'conv-409'",
      })
      expect(again.body.meta?.existing).toEqual(first.body)
    })

    it("keeps any ref_id exactly as sent, finds it with the ref_id filter, and the 409 carries it", async () => {
      const refId = " payroll 2026/01 — ünïcödé & co "
      const body = { profile_id: t.profiles.treasury, amount: "2.00", source_asset: "USD", target_asset: "USDP", ref_id: refId }
      const first = await convert(body)
      expect(first.status).toBe(200)
      expect(first.body.ref_id).toBe(refId)
      const again = await convert(body)
      expect(again.status).toBe(409)
      expect((again.body.meta?.existing as Answer).ref_id).toBe(refId)
      const found = await list(`ref_id=${encodeURIComponent(refId)}`)
      expect(found.body.items.map((c) => c.id)).toEqual([first.body.id])
      expect((await list(`ref_id=${encodeURIComponent(refId.trim())}`)).body.items).toEqual([])
    })

    it("turns 50 concurrent creates with one ref_id into one record and 49 × 409", async () => {
      const body = { profile_id: t.profiles.treasury, amount: "1.00", source_asset: "USD", target_asset: "PYUSD", ref_id: "conv-race" }
      const results = await Promise.all(Array.from({ length: 50 }, () => convert(body)))
      const created = results.filter((r) => r.status === 200)
      expect(created).toHaveLength(1)
      const conflicts = results.filter((r) => r.status === 409)
      expect(conflicts).toHaveLength(49)
      for (const c of conflicts) expect((c.body.meta?.existing as Conversion).id).toBe(created[0]!.body.id)
      expect((await list("ref_id=conv-race")).body.items).toHaveLength(1)
    })

    it("scopes ref_ids and conversions to the client that made them", async () => {
      const otherCreds = { clientId: "second-client", clientSecret: "second-client-secret-012345" }
      const { createSandbox } = await import("@/lib/sandbox/index")
      const registrar = createSandbox({ db: t.database.db, config: TEST_CONFIG, ...otherCreds })
      await registrar.ensureClient()
      await registrar.stop()
      const other = new SandboxClient("http://sandbox.internal", (r) => t.sandbox.fetch(r), otherCreds)
      const body = { profile_id: t.profiles.treasury, amount: "12.00", source_asset: "USD", target_asset: "USDP", ref_id: "conv-409" }
      const mine = await convert(body, other)
      expect(mine.status).toBe(200)
      expect((await other.request("GET", `/v2/conversion/stablecoins/${(await list("ref_id=conv-409")).body.items[0]!.id}`)).status).toBe(404)
      expect((await other.request<Page>("GET", "/v2/conversion/stablecoins")).body.items.map((c) => c.id)).toEqual([mine.body.id])
    })
  })

  describe("listing", () => {
    it("pages with a cursor (default limit 100), newest first, each record exactly once", async () => {
      const profile = t.profiles.float
      t.clock.freeze()
      const ids = new Set<string>()
      try {
        for (let i = 0; i < 130; i += 26) {
          const batch = await Promise.all(
            Array.from({ length: 26 }, () => convert({ profile_id: profile, amount: "1.00", source_asset: "USD", target_asset: "USDP" })),
          )
          for (const r of batch) ids.add(r.body.id)
        }
      } finally {
        t.clock.thaw()
      }
      expect(ids.size).toBe(130)
      const first = await list(`profile_id=${profile}&target_asset=ignored`)
      expect(first.body.items).toHaveLength(100)
      expect(first.body.next_page_cursor).toBeDefined()
      const second = await list(`profile_id=${profile}&page_cursor=${encodeURIComponent(first.body.next_page_cursor!)}`)
      const seen = [...first.body.items, ...second.body.items].map((c) => c.id)
      expect(second.body.next_page_cursor).toBeUndefined()
      expect(new Set(seen).size).toBe(seen.length)
      for (const id of ids) expect(seen).toContain(id)
      const times = seen.map((id) => [...first.body.items, ...second.body.items].find((c) => c.id === id)!.created_at)
      expect([...times].sort().reverse()).toEqual(times)
    })

    it("filters by profile, ref_id and inclusive created_at / updated_at ranges, in either order", async () => {
      const { body: created } = await convert({ profile_id: t.profiles.omnibus, amount: "3.00", source_asset: "USD", target_asset: "USDP", ref_id: "conv-filter" })
      t.clock.advance(10)
      const { body: cancelled } = await cancel(created.id)
      const byRef = await list("ref_id=conv-filter")
      expect(byRef.body.items.map((c) => c.id)).toEqual([created.id])
      const byCreated = await list(`created_at.begin=${created.created_at}&created_at.end=${created.created_at}`)
      expect(byCreated.body.items.map((c) => c.id)).toContain(created.id)
      const byUpdated = await list(`updated_at.begin=${cancelled.updated_at}&updated_at.end=${cancelled.updated_at}`)
      expect(byUpdated.body.items.map((c) => c.id)).toEqual([created.id])
      const before = await list(`updated_at.end=${created.created_at}&profile_id=${t.profiles.omnibus}`)
      expect(before.body.items.map((c) => c.id)).not.toContain(created.id)
      const asc = await list(`profile_id=${t.profiles.omnibus}&order=ASC&limit=1000`)
      const times = asc.body.items.map((c) => c.created_at)
      expect([...times].sort()).toEqual(times)
      expect(asc.body.items.every((c) => c.profile_id === t.profiles.omnibus)).toBe(true)
    })

    it("refuses a limit above 1000 and a malformed cursor", async () => {
      expect((await t.client.request<Problem>("GET", "/v2/conversion/stablecoins?limit=1001")).status).toBe(400)
      expect((await t.client.request<Problem>("GET", "/v2/conversion/stablecoins?page_cursor=%%%")).status).toBe(400)
    })
  })
})
