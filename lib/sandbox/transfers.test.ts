import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { toDecimal } from "@/lib/money"
import { TEST_CONFIG, type TestSandbox, balanceOf, startTestSandbox } from "@/test/sandbox"
import { testDrivers } from "@/test/db"

interface Transfer {
  id: string
  profile_id: string
  customer_id: string
  type: string
  direction: string
  status: string
  asset: string
  amount: string
  fee: string
  total: string
  ref_id?: string
  crypto_network?: string
  crypto_tx_hash?: string
  destination_address?: string
  memo?: string
  group_id?: string
  created_at: string
  updated_at: string
}
interface Event {
  id: string
  type: string
  object_type: string
  object: Record<string, unknown>
  created_at: string
  undelivered_webhooks: number
}
interface Problem {
  status: number
  detail?: string
  meta?: { fields?: Record<string, string> }
}

const WIRE = {
  account_number: "12345678",
  fiat_account_owner_address: { country: "USA", address1: "456 Main Street, NY", city: "New York", province: "NY", zip_code: "10101" },
  routing_details: {
    routing_number_type: "ABA",
    routing_number: "123456789",
    bank_name: "Customers Bank",
    bank_address: { country: "USA", address1: "123 Bank Street", city: "New York", province: "NY", zip_code: "10101" },
  },
}

/**
 * Transfers and events: sandbox deposits and orchestrations as the service's Transfers and
 * Events APIs show them. Every answer is checked against the reference's schemas (test/sandbox.ts).
 */
describe.each(testDrivers())("transfers and events on %s", (driver) => {
  let t: TestSandbox
  beforeAll(async () => {
    t = await startTestSandbox(driver)
  })
  afterEach(async () => {
    await t.client.request("PUT", "/admin/faults", { body: { rules: [], deposit_delay_ms: 0, orchestration_approval: false } })
  })
  afterAll(async () => {
    await t?.close()
  })

  const transfer = (id: string) => t.client.request<Transfer>("GET", `/v2/transfer/transfers/${id}`)
  const transfers = (query: string) => t.client.request<{ items: Transfer[]; next_page_cursor?: string }>("GET", `/v2/transfer/transfers?${query}`)
  const events = (query = "") => t.client.request<{ events: Event[]; next_page_cursor?: string }>("GET", `/v2/events?${query}`)
  /** Every event about one object, oldest first. */
  const eventsOf = async (objectId: string, since: string) =>
    (await events(`created_at.gte=${since}&limit=1000`)).body.events.filter((e) => e.object.id === objectId)

  it("a deposit is a transfer PENDING → COMPLETED that moves the balance only on completion, with an event for each", async () => {
    await t.client.request("PUT", "/admin/faults", { body: { deposit_delay_ms: 5000 } })
    const since = t.clock.date().toISOString()
    const before = await balanceOf(t.client, t.profiles.float, "BTC")
    const { status, body } = await t.client.request<{ activity_id: string }>("POST", `/v2/sandbox/profiles/${t.profiles.float}/deposit`, {
      body: { asset: "BTC", amount: "0.5", crypto_network: "BITCOIN", crypto_address: "bc1qexampleaddress" },
    })
    expect(status).toBe(200)
    const pending = (await transfer(body.activity_id)).body
    expect(pending).toMatchObject({
      id: body.activity_id,
      profile_id: t.profiles.float,
      customer_id: t.client.credentials.clientId,
      type: "CRYPTO_DEPOSIT",
      direction: "CREDIT",
      status: "PENDING",
      asset: "BTC",
      amount: "0.5",
      fee: "0",
      total: "0.5",
      crypto_network: "BITCOIN",
      destination_address: "bc1qexampleaddress",
    })
    expect(pending.crypto_tx_hash).toMatch(/^[0-9a-f]{64}$/)
    expect(await balanceOf(t.client, t.profiles.float, "BTC")).toEqual(before)

    t.clock.advance(5000)
    await t.sandbox.settleDue()
    const done = (await transfer(body.activity_id)).body
    expect(done).toMatchObject({ status: "COMPLETED", crypto_tx_hash: pending.crypto_tx_hash })
    expect(done.updated_at > done.created_at).toBe(true)
    expect((await balanceOf(t.client, t.profiles.float, "BTC")).available).toBe(toDecimal(before.available).plus("0.5").toString())
    const told = await eventsOf(body.activity_id, since)
    expect(told.map((e) => e.type)).toEqual(["transfer.crypto_deposit.pending", "transfer.crypto_deposit.completed"])
    expect(told[1]).toMatchObject({ object_type: "transfer_status_change", object: { status: "COMPLETED", profile_id: t.profiles.float }, undelivered_webhooks: 0 })
  })

  it("a fiat deposit (the reference's wire instructions) credits the profile whose memo it names", async () => {
    const before = await balanceOf(t.client, t.profiles.omnibus, "USD")
    const ok = await t.client.request("POST", "/v2/sandbox/fiat-deposits", {
      body: { amount: "250.75", asset: "USD", memo_id: t.profiles.omnibus, fiat_network_instructions: { wire: WIRE } },
    })
    expect(ok.status).toBe(200)
    expect((await balanceOf(t.client, t.profiles.omnibus, "USD")).available).toBe(toDecimal(before.available).plus("250.75").toFixed(2))
    const [wire] = (await transfers(`profile_ids=${t.profiles.omnibus}&limit=1`)).body.items
    expect(wire).toMatchObject({ type: "WIRE_DEPOSIT", status: "COMPLETED", amount: "250.75", asset: "USD", memo: t.profiles.omnibus })

    const cases: [unknown, string][] = [
      [{ amount: "1.00", asset: "USD", memo_id: "no-such-memo", fiat_network_instructions: { wire: WIRE } }, "memo_id"],
      [{ amount: "1.001", asset: "USD", memo_id: t.profiles.omnibus, fiat_network_instructions: { wire: WIRE } }, "amount"],
      [{ amount: "1.00", asset: "EUR", memo_id: t.profiles.omnibus, fiat_network_instructions: { wire: WIRE } }, "asset"],
      [{ amount: "1.00", asset: "USD", memo_id: t.profiles.omnibus }, "fiat_network_instructions"],
      [{ amount: "1.00", asset: "USD", memo_id: t.profiles.omnibus, fiat_network_instructions: {} }, "fiat_network_instructions"],
    ]
    for (const [input, field] of cases) {
      const { status, body } = await t.client.request<Problem>("POST", "/v2/sandbox/fiat-deposits", { body: input })
      expect(status, field).toBe(400)
      expect(Object.keys(body.meta?.fields ?? {}), field).toContain(field)
    }
    expect((await balanceOf(t.client, t.profiles.omnibus, "USD")).available).toBe(toDecimal(before.available).plus("250.75").toFixed(2))
  })

  it("an orchestration's legs are transfers: a debit at PROCESSING, a credit at COMPLETED, linked by group_id, with their events", async () => {
    const since = t.clock.date().toISOString()
    const { body: created } = await t.client.request<{ id: string; source_transfer: { transfer_id: string }; destination_transfer: { transfer_id: string } }>(
      "POST",
      "/v2/orchestration/orchestrations",
      {
        body: {
          ref_id: "legs-1",
          source_amount: "12.00",
          source_asset: "USD",
          destination_asset: "USDG",
          source: { profile: { profile_id: t.profiles.treasury } },
          destination: { profile: { profile_id: t.profiles.float } },
        },
      },
    )
    const debit = (await transfer(created.source_transfer.transfer_id)).body
    expect(debit).toMatchObject({ type: "INTERNAL_TRANSFER_DEBIT", direction: "DEBIT", status: "PENDING", profile_id: t.profiles.treasury, amount: "12.00", ref_id: "legs-1", group_id: created.id })
    expect((await transfer(created.destination_transfer.transfer_id)).status).toBe(404)
    t.clock.advance(TEST_CONFIG.settleDelayMs)
    await t.sandbox.settleDue()
    expect((await transfer(debit.id)).body.status).toBe("COMPLETED")
    const credit = (await transfer(created.destination_transfer.transfer_id)).body
    expect(credit).toMatchObject({ type: "INTERNAL_TRANSFER_CREDIT", direction: "CREDIT", status: "COMPLETED", profile_id: t.profiles.float, asset: "USDG", amount: "12", group_id: created.id })

    const all = (await events(`created_at.gte=${since}`)).body.events
    const orchestration = all.filter((e) => e.object.id === created.id)
    expect(orchestration.map((e) => e.type)).toEqual(["orchestration.processing", "orchestration.completed"])
    expect(orchestration[1]).toMatchObject({ object_type: "orchestration_status_change", object: { id: created.id, ref_id: "legs-1", status: "COMPLETED" } })
    expect(all.filter((e) => e.object.id === debit.id).map((e) => e.type)).toEqual(["transfer.internal_transfer_debit.completed"])
    expect(all.filter((e) => e.object.id === credit.id).map((e) => e.type)).toEqual(["transfer.internal_transfer_credit.completed"])
  })

  describe("GET /v2/transfer/transfers", () => {
    it("filters by profile, ids, ref_ids, type and statuses, newest first by default, and pages with a cursor", async () => {
      const profile = t.profiles.float
      const ids: string[] = []
      for (let i = 0; i < 5; i++) {
        t.clock.advance(1)
        const { body } = await t.client.request<{ activity_id: string }>("POST", `/v2/sandbox/profiles/${profile}/deposit`, { body: { asset: "USD", amount: `${i + 1}.00` } })
        ids.push(body.activity_id)
      }
      const byIds = await transfers(ids.map((id) => `ids=${id}`).join("&"))
      expect(byIds.body.items.map((x) => x.id)).toEqual([...ids].reverse())
      const ascending = await transfers(`ids=${ids.join(",")}&order=ASC&limit=2`)
      expect(ascending.body.items.map((x) => x.id)).toEqual(ids.slice(0, 2))
      const next = await transfers(`ids=${ids.join(",")}&order=ASC&limit=2&page_cursor=${ascending.body.next_page_cursor}`)
      expect(next.body.items.map((x) => x.id)).toEqual(ids.slice(2, 4))
      expect((await transfers(`type=WIRE_DEPOSIT&statuses=COMPLETED&limit=1000`)).body.items.map((x) => x.id)).toEqual(expect.arrayContaining(ids))
      expect((await transfers(`type=CRYPTO_WITHDRAWAL`)).body.items).toEqual([])
      expect((await transfers(`ref_ids=legs-1`)).body.items.map((x) => x.type).sort()).toEqual(["INTERNAL_TRANSFER_CREDIT", "INTERNAL_TRANSFER_DEBIT"])
      const updated = await transfers(`ids=${ids.join(",")}&order_by=UPDATED_AT&limit=1`)
      expect(updated.body.items.map((x) => x.id)).toEqual([ids[0]])
    })

    it("transfers made in one millisecond are listed in the order they were made, and page without a repeat or a gap", async () => {
      const ids: string[] = []
      // The sandbox clock stands still: every deposit is stamped with the same millisecond.
      t.clock.freeze()
      try {
        for (let i = 0; i < 6; i++) {
          const { body } = await t.client.request<{ activity_id: string }>("POST", `/v2/sandbox/profiles/${t.profiles.float}/deposit`, { body: { asset: "USD", amount: `${i + 1}.00` } })
          ids.push(body.activity_id)
        }
      } finally {
        t.clock.thaw()
      }
      const newestFirst = await transfers(`ids=${ids.join(",")}`)
      expect(new Set(newestFirst.body.items.map((x) => x.created_at)).size).toBe(1)
      expect(newestFirst.body.items.map((x) => x.id)).toEqual([...ids].reverse())
      const paged: string[] = []
      let cursor = ""
      do {
        const page = await transfers(`ids=${ids.join(",")}&order=ASC&limit=4${cursor ? `&page_cursor=${cursor}` : ""}`)
        paged.push(...page.body.items.map((x) => x.id))
        cursor = page.body.next_page_cursor ?? ""
      } while (cursor)
      expect(paged).toEqual(ids)
    })

    it("refuses what the service refuses, naming the parameter", async () => {
      const cases: [string, string][] = [
        ["limit=1001", "limit"],
        ["limit=0", "limit"],
        [`profile_ids=${t.profiles.float}&type=WIRE_DEPOSIT`, "profile_ids"],
        ["type=NOT_A_TYPE", "type"],
        ["statuses=SETTLED", "statuses"],
        ["order_by=UPDATED_AT&created_at.gte=2026-01-01T00:00:00Z", "order_by"],
        ["created_at.gte=yesterday", "created_at.gte"],
        ["order=UP", "order"],
        ["page_cursor=nonsense", "page_cursor"],
      ]
      for (const [query, field] of cases) {
        const { status, body } = await t.client.request<Problem>("GET", `/v2/transfer/transfers?${query}`)
        expect(status, query).toBe(400)
        expect(Object.keys(body.meta?.fields ?? {}), query).toContain(field)
      }
      expect((await transfer("not-an-id")).status).toBe(404)
    })
  })

  describe("GET /v2/events", () => {
    it("lists ascending by default, filters by type and time, pages, and reads one by id", async () => {
      const since = t.clock.date().toISOString()
      for (let i = 0; i < 3; i++) {
        t.clock.advance(1)
        await t.client.request("POST", `/v2/sandbox/profiles/${t.profiles.treasury}/deposit`, { body: { asset: "USD", amount: "1.00" } })
      }
      const all = (await events(`created_at.gte=${since}&type=transfer.wire_deposit.completed`)).body.events
      expect(all).toHaveLength(3)
      expect(all.map((e) => e.created_at)).toEqual([...all.map((e) => e.created_at)].sort())
      const first = await events(`created_at.gte=${since}&type=transfer.wire_deposit.completed&limit=2`)
      expect(first.body.events).toEqual(all.slice(0, 2))
      const rest = await events(`created_at.gte=${since}&type=transfer.wire_deposit.completed&limit=2&page_cursor=${first.body.next_page_cursor}`)
      expect(rest.body.events).toEqual(all.slice(2))
      expect(rest.body.next_page_cursor).toBeUndefined()
      const newestFirst = (await events(`created_at.gte=${since}&type=transfer.wire_deposit.completed&order=DESC`)).body.events
      expect(newestFirst).toEqual([...all].reverse())
      expect((await events(`created_at.gt=${all[2]?.created_at}&type=transfer.wire_deposit.completed`)).body.events).toEqual([])
      // Every sandbox event is a real one: is_test=true finds none.
      expect((await events(`created_at.gte=${since}&is_test=true`)).body.events).toEqual([])

      const one = all[0]!
      expect((await t.client.request<Event>("GET", `/v2/events/${one.id}`)).body).toEqual(one)
      expect((await t.client.request("GET", "/v2/events/not-an-id")).status).toBe(400)
      expect((await t.client.request("GET", "/v2/events/5e0b7c1a-0000-4000-8000-000000000000")).status).toBe(404)
      expect((await t.client.request("GET", "/v2/events?limit=abc")).status).toBe(400)
    })

    it("needs events:read_event; transfers need transfer:read_transfer", async () => {
      const token = await t.client.token(["funding:read_profile"])
      for (const [path, scope] of [
        ["/v2/events", "events:read_event"],
        ["/v2/transfer/transfers", "transfer:read_transfer"],
      ] as const) {
        const refused = await t.client.request<Problem>("GET", path, { token })
        expect(refused.status).toBe(403)
        expect(refused.body.detail).toBe(`insufficient scopes: found [funding:read_profile], required one of [${scope}]`)
        expect((await t.client.request("GET", path, { token: await t.client.token([scope]) })).status).toBe(200)
      }
    })
  })
})
