import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { TEST_CONFIG, type TestSandbox, balanceOf, startTestSandbox } from "@/test/sandbox"
import { testDrivers } from "@/test/db"

interface Orchestration {
  id: string
  ref_id: string
  status: string
  source_transfer?: { transfer_id: string; status: string }
  destination_transfer?: { transfer_id: string; status: string }
  fail_reason?: { detail: string }
}
interface Page {
  items: Orchestration[]
  orchestrations: Orchestration[]
  next_page_cursor?: string
}
interface Event {
  type: string
  object: Record<string, unknown>
}

const PATH = "/v2/orchestration/orchestrations"

/**
 * What changed in the service since the first Orchestrations contract: approval at the
 * service (PENDING → PROCESSING, or REJECTED), the ref_id filter, `items` beside the
 * deprecated `orchestrations`. Every answer is checked against the reference (test/sandbox.ts).
 */
describe.each(testDrivers())("orchestrations at the service, newer contract, on %s", (driver) => {
  let t: TestSandbox
  beforeAll(async () => {
    t = await startTestSandbox(driver)
  })
  afterEach(async () => {
    await t.client.request("PUT", "/admin/faults", { body: { orchestration_approval: false } })
  })
  afterAll(async () => {
    await t?.close()
  })

  let n = 0
  const create = (amount = "10.00", profile = t.profiles.treasury) =>
    t.client.request<Orchestration>("POST", PATH, {
      body: {
        ref_id: `approval-${++n}`,
        source_amount: amount,
        source_asset: "USD",
        destination_asset: "USDP",
        source: { profile: { profile_id: profile } },
        destination: { profile: { profile_id: profile } },
      },
    })
  const get = async (id: string) => (await t.client.request<Orchestration>("GET", `${PATH}/${id}`)).body
  const admin = (id: string, action: "approve" | "reject") => t.client.request<Orchestration & { detail?: string }>("POST", `/admin/orchestrations/${id}/${action}`)
  const settle = async () => {
    t.clock.advance(TEST_CONFIG.settleDelayMs)
    await t.sandbox.settleDue()
  }
  const eventsOf = async (id: string) =>
    (await t.client.request<{ events: Event[] }>("GET", "/v2/events?limit=1000&order=DESC")).body.events.filter((e) => e.object.id === id).map((e) => e.type).reverse()

  it("with approval on, a new one waits in PENDING with nothing moved; approved, it runs as usual", async () => {
    await t.client.request("PUT", "/admin/faults", { body: { orchestration_approval: true } })
    const usd = await balanceOf(t.client, t.profiles.treasury, "USD")
    const { status, body: created } = await create("25.00")
    expect(status).toBe(200)
    expect(created.status).toBe("PENDING")
    expect(created.source_transfer).toBeUndefined()
    expect(await balanceOf(t.client, t.profiles.treasury, "USD")).toEqual(usd)
    // The settlement delay does not apply while it waits.
    await settle()
    expect((await get(created.id)).status).toBe("PENDING")
    expect(await eventsOf(created.id)).toEqual([])

    const approved = await admin(created.id, "approve")
    expect(approved.status).toBe(200)
    expect(approved.body).toMatchObject({ status: "PROCESSING", source_transfer: { status: "PROCESSING" } })
    expect((await balanceOf(t.client, t.profiles.treasury, "USD")).trading).not.toBe(usd.trading)
    await settle()
    expect((await get(created.id)).status).toBe("COMPLETED")
    expect(await eventsOf(created.id)).toEqual(["orchestration.processing", "orchestration.completed"])
    expect((await admin(created.id, "approve")).status).toBe(409)
  })

  it("rejected, it is final with nothing moved; only a PENDING one can be approved or rejected", async () => {
    await t.client.request("PUT", "/admin/faults", { body: { orchestration_approval: true } })
    const usd = await balanceOf(t.client, t.profiles.treasury, "USD")
    const { body: created } = await create()
    const rejected = await admin(created.id, "reject")
    expect(rejected.body).toMatchObject({ id: created.id, status: "REJECTED" })
    expect(rejected.body.source_transfer).toBeUndefined()
    await settle()
    expect((await get(created.id)).status).toBe("REJECTED")
    expect(await balanceOf(t.client, t.profiles.treasury, "USD")).toEqual(usd)
    const again = await admin(created.id, "approve")
    expect(again.status).toBe(409)
    expect(again.body.detail).toContain("REJECTED")
    expect((await admin("5e0b7c1a-0000-4000-8000-000000000000", "reject")).status).toBe(404)
    expect((await admin("not-an-id", "approve")).status).toBe(404)
    const scoped = await t.client.token(["orchestration:write_orchestration"])
    expect((await t.client.request("POST", `/admin/orchestrations/${created.id}/approve`, { token: scoped })).status).toBe(403)
  })

  it("approved when the source no longer has the funds, it ends FAILED with nothing moved", async () => {
    await t.client.request("PUT", "/admin/faults", { body: { orchestration_approval: true } })
    const usd = await balanceOf(t.client, t.profiles.float, "USD")
    const { body: created } = await create("999999.00", t.profiles.float)
    expect(created.status).toBe("PENDING")
    const approved = await admin(created.id, "approve")
    expect(approved.status).toBe(200)
    expect(approved.body.status).toBe("FAILED")
    expect(approved.body.fail_reason?.detail).toContain("insufficient USD funds")
    expect(await balanceOf(t.client, t.profiles.float, "USD")).toEqual(usd)
    expect(await eventsOf(created.id)).toEqual(["orchestration.failed"])
  })

  it("lists by ref_id, answering items and the deprecated orchestrations with the same content", async () => {
    const a = (await create()).body
    const b = (await create()).body
    await create()
    const { status, body } = await t.client.request<Page>("GET", `${PATH}?ref_id=${encodeURIComponent(a.ref_id)}&ref_id=${encodeURIComponent(b.ref_id)}`)
    expect(status).toBe(200)
    expect(body.items.map((o) => o.id).sort()).toEqual([a.id, b.id].sort())
    expect(body.orchestrations).toEqual(body.items)
    expect((await t.client.request<Page>("GET", `${PATH}?ref_id=no-such-ref`)).body.items).toEqual([])
    const tooMany = Array.from({ length: 101 }, (_, i) => `ref_id=r${i}`).join("&")
    expect((await t.client.request("GET", `${PATH}?${tooMany}`)).status).toBe(400)
  })
})
