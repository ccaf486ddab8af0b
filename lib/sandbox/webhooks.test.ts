import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { retryDelayMs } from "@/lib/sandbox/webhooks"
import { type TestSandbox, startTestSandbox } from "@/test/sandbox"
import { testDrivers } from "@/test/db"

interface Delivery {
  url: string
  headers: Record<string, string>
  body: Record<string, unknown>
}
interface Event {
  id: string
  type: string
  created_at: string
  undelivered_webhooks: number
}

const URL_ = "https://console.example/api/webhooks/service"
const KEY = "k".repeat(40)

/** Webhooks as the service sends them: `{id, type, created_at, source}` per event, with the API-key header, retried with backoff. */
describe.each(testDrivers())("sandbox webhooks on %s", (driver) => {
  let t: TestSandbox
  const received: Delivery[] = []
  /** What the receiver answers next (200 unless a test says otherwise). */
  let answer = 200
  beforeAll(async () => {
    t = await startTestSandbox(driver, {}, {
      webhookSend: (url, init) => {
        const headers = Object.fromEntries(new Headers(init.headers).entries())
        received.push({ url, headers, body: JSON.parse(typeof init.body === "string" ? init.body : "null") as Record<string, unknown> })
        return Promise.resolve(new Response(null, { status: answer }))
      },
    })
  })
  afterEach(async () => {
    answer = 200
    received.length = 0
    await t.client.request("PUT", "/admin/faults", { body: { rules: [], webhook_url: null, webhook_api_key: null, webhook_api_key_header: null } })
  })
  afterAll(async () => {
    await t?.close()
  })

  const deposit = async () => {
    t.clock.advance(1)
    await t.client.request("POST", `/v2/sandbox/profiles/${t.profiles.treasury}/deposit`, { body: { asset: "USD", amount: "1.00" } })
  }
  const event = async (id: string) => (await t.client.request<Event>("GET", `/v2/events/${id}`)).body

  it("POSTs each event created since the URL was set, with the API-key header, once; the key is never answered", async () => {
    await deposit() // before the webhook: never delivered
    const settings = await t.client.request<Record<string, unknown>>("PUT", "/admin/faults", {
      body: { webhook_url: URL_, webhook_api_key_header: "X-Api-Key", webhook_api_key: KEY },
    })
    expect(settings.body).toMatchObject({ webhook_url: URL_, webhook_api_key_header: "X-Api-Key", webhook_api_key_set: true })
    expect(JSON.stringify(settings.body)).not.toContain(KEY)
    expect(JSON.stringify((await t.client.request("GET", "/admin/faults")).body)).not.toContain(KEY)

    t.clock.advance(1)
    await deposit()
    expect(await t.sandbox.deliverWebhooks()).toBe(2)
    expect(received.map((r) => r.body.type)).toEqual(["transfer.wire_deposit.pending", "transfer.wire_deposit.completed"])
    for (const delivery of received) {
      expect(delivery.url).toBe(URL_)
      expect(delivery.headers["x-api-key"]).toBe(KEY)
      expect(delivery.headers["content-type"]).toBe("application/json")
      expect(Object.keys(delivery.body).sort()).toEqual(["created_at", "id", "source", "type"])
      expect(delivery.body.source).toBe("com.paxos")
      const told = await event(String(delivery.body.id))
      expect(delivery.body).toEqual({ id: told.id, type: told.type, created_at: told.created_at, source: "com.paxos" })
      expect(told.undelivered_webhooks).toBe(0)
    }
    expect(await t.sandbox.deliverWebhooks()).toBe(0)
    expect(received).toHaveLength(2)
  })

  it("retries a failed delivery with backoff, counting it undelivered meanwhile", async () => {
    await t.client.request("PUT", "/admin/faults", { body: { webhook_url: URL_ } })
    t.clock.advance(1)
    answer = 503
    await deposit()
    expect(await t.sandbox.deliverWebhooks()).toBe(0)
    expect(received).toHaveLength(2)
    const ids = received.map((r) => String(r.body.id))
    for (const id of ids) expect((await event(id)).undelivered_webhooks).toBe(1)
    answer = 200
    // Not before its backoff has passed…
    expect(await t.sandbox.deliverWebhooks()).toBe(0)
    expect(received).toHaveLength(2)
    t.clock.advance(retryDelayMs(1))
    expect(await t.sandbox.deliverWebhooks()).toBe(2)
    expect(received.slice(2).map((r) => r.body.id)).toEqual(ids)
    for (const id of ids) expect((await event(id)).undelivered_webhooks).toBe(0)
    expect([1, 2, 3, 13, 20].map(retryDelayMs)).toEqual([1000, 2000, 4000, 3_600_000, 3_600_000])
  })

  it("a drop fault loses deliveries for good; an error fault fails them (retried)", async () => {
    await t.client.request("PUT", "/admin/faults", {
      body: { webhook_url: URL_, rules: [{ operation: "deliver_webhook", fault: "drop", rate: 1 }] },
    })
    t.clock.advance(1)
    await deposit()
    expect(await t.sandbox.deliverWebhooks()).toBe(0)
    expect(received).toEqual([])
    const { body } = await t.client.request<{ events: Event[] }>("GET", "/v2/events?order=DESC&limit=2")
    for (const e of body.events) expect(e.undelivered_webhooks).toBe(1)
    await t.client.request("PUT", "/admin/faults", { body: { rules: [{ operation: "deliver_webhook", fault: "error", rate: 1, status: 503 }] } })
    t.clock.advance(retryDelayMs(10))
    expect(await t.sandbox.deliverWebhooks()).toBe(0)
    expect(received).toEqual([])
    await t.client.request("PUT", "/admin/faults", { body: { rules: [] } })
    // The dropped ones never come; nothing else is due.
    t.clock.advance(retryDelayMs(10))
    expect(await t.sandbox.deliverWebhooks()).toBe(0)
    expect(received).toEqual([])
  })

  it("refuses bad webhook settings and faults naming the field", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ webhook_url: "ftp://x.example" }, "webhook_url"],
      [{ webhook_url: "not a url" }, "webhook_url"],
      [{ webhook_api_key_header: "bad header" }, "webhook_api_key_header"],
      [{ webhook_api_key: "has space" }, "webhook_api_key"],
      [{ deposit_delay_ms: -1 }, "deposit_delay_ms"],
      [{ orchestration_approval: "yes" }, "orchestration_approval"],
      [{ rules: [{ operation: "deliver_webhook", fault: "hang", rate: 1 }] }, "rules[0].fault"],
      [{ rules: [{ operation: "get", fault: "drop", rate: 1 }] }, "rules[0].operation"],
    ]
    for (const [body, field] of cases) {
      const answer = await t.client.request<{ meta?: { fields?: Record<string, string> } }>("PUT", "/admin/faults", { body })
      expect(answer.status, field).toBe(400)
      expect(Object.keys(answer.body.meta?.fields ?? {}), field).toContain(field)
    }
  })
})
