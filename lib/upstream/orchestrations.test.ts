import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createSandbox, type Sandbox } from "@/lib/sandbox"
import { scopesFor } from "@/lib/schemas/scopes"
import { type UpstreamClient, UpstreamConflictError, createUpstreamClient } from "@/lib/upstream"
import { FAST_SANDBOX } from "@/test/console"
import type { Database } from "@/lib/db/client"
import { createTestDatabase } from "@/test/db"

/**
 * The Orchestrations adapter against the embedded sandbox: the console's conversion calls
 * go out as orchestrations and come back in the console's conversion shape.
 */
describe("the Orchestrations adapter", () => {
  let database: Database
  let sandbox: Sandbox
  let upstream: UpstreamClient
  const sent: { method: string; path: string; search: string; body: unknown }[] = []
  let treasury: string
  let other: string

  beforeAll(async () => {
    database = await createTestDatabase("pglite")
    sandbox = createSandbox({ db: database.db, config: { ...FAST_SANDBOX, settleDelayMs: 60_000 } })
    const credentials = await sandbox.ensureClient()
    upstream = createUpstreamClient({
      baseUrl: "http://sandbox.internal/sandbox/v2",
      tokenUrl: "http://sandbox.internal/sandbox/oauth2/token",
      ...credentials,
      scopes: scopesFor("orchestrations"),
      timeoutMs: 2000,
      conversionsApi: "orchestrations",
      fetch: async (request) => {
        const url = new URL(request.url)
        if (url.pathname.includes("/orchestration")) {
          const text = await request.clone().text()
          sent.push({ method: request.method, path: url.pathname, search: url.search, body: text ? JSON.parse(text) : undefined })
        }
        return sandbox.fetch(request)
      },
    })
    const profiles = (await upstream.listProfiles()).items
    treasury = profiles[0]!.id
    other = profiles[1]!.id
  })
  afterAll(async () => {
    await sandbox?.stop()
    await database?.close()
  })

  it("sends a conversion as an orchestration and answers in the console's conversion shape", async () => {
    sent.length = 0
    const refId = randomUUID()
    const { record, replayed } = await upstream.createConversion({
      profile_id: treasury,
      amount: "25.50",
      source_asset: "USD",
      target_asset: "PYUSD",
      ref_id: refId,
      metadata: { desk: "ops" },
      recipient_profile_id: other,
    })
    expect(replayed).toBe(false)
    expect(sent[0]).toEqual({
      method: "POST",
      path: "/sandbox/v2/orchestration/orchestrations",
      search: "",
      body: {
        ref_id: refId,
        source_asset: "USD",
        destination_asset: "PYUSD",
        source_amount: "25.50",
        source: { profile: { profile_id: treasury } },
        destination: { profile: { profile_id: other } },
        metadata: { desk: "ops" },
      },
    })
    expect(record).toMatchObject({
      profile_id: treasury,
      amount: "25.5",
      source_asset: "USD",
      target_asset: "PYUSD",
      status: "PROCESSING",
      ref_id: refId,
      metadata: { desk: "ops" },
      recipient_profile_id: other,
    })
    expect(Object.keys(record)).not.toContain("source_amount")
    expect(await upstream.getConversion(record.id)).toEqual(record)
  })

  it("a same-profile conversion has no recipient; a retry with the same request is a replay, another is a conflict", async () => {
    const body = { profile_id: treasury, amount: "3.00", source_asset: "USD" as const, target_asset: "USDG" as const, ref_id: randomUUID() }
    const first = await upstream.createConversion(body)
    expect(first.record.recipient_profile_id).toBeUndefined()
    const again = await upstream.createConversion(body)
    expect(again).toMatchObject({ replayed: true, record: { id: first.record.id } })
    const error = await upstream.createConversion({ ...body, amount: "4.00" }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(UpstreamConflictError)
    const toOther = await upstream.createConversion({ ...body, recipient_profile_id: other }).catch((e: unknown) => e)
    expect(toOther).toBeInstanceOf(UpstreamConflictError)
  })

  it("maps the list's filters, finds a ref_id by reading pages, and keeps the cursor", async () => {
    const refId = randomUUID()
    const placed = (await upstream.createConversion({ profile_id: other, amount: "1.00", source_asset: "USD", target_asset: "USDP", ref_id: refId })).record
    sent.length = 0
    const page = await upstream.listConversions({ profile_id: other, "created_at.begin": placed.created_at, "created_at.end": placed.created_at, order: "ASC", limit: 5 })
    expect(page.items.map((c) => c.id)).toEqual([placed.id])
    const query = new URLSearchParams(sent[0]!.search)
    expect(Object.fromEntries(query)).toEqual({
      profile_id: other,
      "created_at.gte": placed.created_at!,
      "created_at.lte": placed.created_at!,
      order: "ASC",
      limit: "5",
    })
    sent.length = 0
    expect((await upstream.listConversions({ ref_id: refId })).items.map((c) => c.id)).toEqual([placed.id])
    // One call with the service's ref_id filter, not a scan of the newest pages.
    expect(sent.map((s) => new URLSearchParams(s.search).get("ref_id"))).toEqual([refId])
    expect((await upstream.listConversions({ ref_id: "no-such-ref" })).items).toEqual([])
    const first = await upstream.listConversions({ limit: 1 })
    expect(first.next_page_cursor).toBeDefined()
    const second = await upstream.listConversions({ limit: 1, page_cursor: first.next_page_cursor })
    expect(second.items[0]!.id).not.toBe(first.items[0]!.id)
  })

  it("reads items, and falls back to the deprecated orchestrations when an answer has only that", async () => {
    const { orchestrationPageSchema } = await import("@/lib/schemas/orchestration")
    const row = { id: "o-1", status: "PENDING", source_amount: "5.00", source_asset: "USD", destination_asset: "USDP" }
    expect(orchestrationPageSchema.parse({ orchestrations: [row] }).orchestrations).toHaveLength(1)
    expect(orchestrationPageSchema.parse({ items: [row] }).items).toHaveLength(1)
    expect(orchestrationPageSchema.safeParse({ next_page_cursor: "x" }).success).toBe(false)
    const refId = randomUUID()
    const placed = (await upstream.createConversion({ profile_id: treasury, amount: "2.00", source_asset: "USD", target_asset: "USDP", ref_id: refId })).record
    const page = await upstream.listConversions({ limit: 5 })
    expect(page.items.map((c) => c.id)).toContain(placed.id)
  })

  it("filters updated_at itself (the service has no such filter)", async () => {
    const placed = (await upstream.createConversion({ profile_id: treasury, amount: "2.00", source_asset: "USD", target_asset: "USDP", ref_id: randomUUID() })).record
    const after = new Date(Date.parse(placed.updated_at!) + 1).toISOString()
    const inside = await upstream.listConversions({ profile_id: treasury, "updated_at.begin": placed.updated_at })
    expect(inside.items.map((c) => c.id)).toContain(placed.id)
    const outside = await upstream.listConversions({ profile_id: treasury, "updated_at.begin": after })
    expect(outside.items.map((c) => c.id)).not.toContain(placed.id)
  })
})
