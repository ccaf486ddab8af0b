import { randomUUID } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { count } from "drizzle-orm"
import { NextRequest } from "next/server"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { ConsoleRuntime } from "@/lib/console/runtime"
import { withApiKey } from "@/lib/console/with-bearer-token"
import { consoleEventReader, consoleEvents } from "@/lib/db/schema"

// The webhook receiver through its real route module, on a console in sandbox mode (PGlite:
// the reader is alone and is not started, so every read here is one a hint asked for).
const dataDir = mkdtempSync(path.join(tmpdir(), "console-webhook-"))
const KEY = `webhook-key-${randomUUID()}`
process.env.DATA_DIR = dataDir
process.env.NEXTAUTH_SECRET = "webhook-tests-secret-0123456789-abcdefghijk"
process.env.LOG_LEVEL = "silent"
process.env.WEBHOOK_API_KEY = KEY
process.env.WEBHOOK_API_KEY_HEADER = "X-Paxos-Key"

type Handler = (req: NextRequest, ctx: { params: Promise<Record<string, never>> }) => Promise<Response>
let runtime: ConsoleRuntime
let post: Handler

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))
async function until(condition: () => boolean, what: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(20)
  }
}

const hint = () => ({ id: randomUUID(), type: "transfer.wire_deposit.completed", created_at: new Date().toISOString(), source: "com.paxos" })

function send(body: unknown, headers: Record<string, string> = { "x-paxos-key": KEY }): Promise<Response> {
  const text = typeof body === "string" ? body : JSON.stringify(body)
  return post(
    new NextRequest("http://localhost/api/webhooks/service", { method: "POST", headers: { "content-type": "application/json", ...headers }, body: text }),
    { params: Promise.resolve({}) },
  )
}

async function recorded(): Promise<{ events: number; reader: unknown }> {
  const [events] = await runtime.db.select({ n: count() }).from(consoleEvents)
  const [reader] = await runtime.db.select().from(consoleEventReader)
  return { events: events!.n, reader }
}

beforeAll(async () => {
  const { consoleRuntime } = await import("@/lib/console/runtime")
  runtime = await consoleRuntime()
  const route = await import("@/app/api/webhooks/service/route")
  post = route.POST
})

afterAll(async () => {
  await runtime?.events?.stop()
  await runtime?.quotes.stop()
  await runtime?.sandbox?.stop()
  rmSync(dataDir, { recursive: true, force: true })
})

describe("POST /api/webhooks/service", () => {
  it("a missing or wrong key is a 401 problem, and nothing is recorded or read", async () => {
    const before = await recorded()
    const reads = runtime.events!.reads()
    const attempts: Record<string, string>[] = [{}, { "x-paxos-key": "wrong" }, { "x-paxos-key": `${KEY}x` }, { "x-api-key": KEY }, { authorization: `Bearer ${KEY}` }]
    for (const headers of attempts) {
      const res = await send(hint(), headers)
      expect(res.status).toBe(401)
      expect(res.headers.get("content-type")).toContain("application/problem+json")
      const body = (await res.json()) as { code: string }
      expect(body.code).toBe("unauthenticated")
      expect(JSON.stringify(body)).not.toContain(KEY)
    }
    await sleep(50)
    expect(await recorded()).toEqual(before)
    expect(runtime.events!.reads()).toBe(reads)
  })

  it("a body over 4 KB is a 413 problem; a body that is not the hint's shape is a 400 naming the field", async () => {
    const big = await send({ ...hint(), padding: "x".repeat(5000) })
    expect(big.status).toBe(413)
    expect(((await big.json()) as { code: string }).code).toBe("body_too_large")
    const bad = await send({ ...hint(), created_at: "yesterday" })
    expect(bad.status).toBe(400)
    const problem = (await bad.json()) as { code: string; meta: { fields: Record<string, string> } }
    expect(problem.code).toBe("validation_failed")
    expect(problem.meta.fields.created_at).toMatch(/RFC 3339/)
    const notJson = await send("{not json")
    expect(notJson.status).toBe(400)
  })

  it("a valid hint is answered 202 and wakes the reader, which reads the service's events", async () => {
    const reads = runtime.events!.reads()
    const res = await send(hint())
    expect(res.status).toBe(202)
    expect(await res.json()).toEqual({ accepted: true, reader: "woken" })
    await until(() => runtime.events!.reads() > reads, "the read the hint asked for")
  })

  it("1,000 hints cost no more reads than the reader's pace: at most one per wake gap, plus the one in flight", async () => {
    await sleep(600)
    const reads = runtime.events!.reads()
    const started = Date.now()
    const answers = await Promise.all(Array.from({ length: 1000 }, () => send(hint())))
    const elapsed = Date.now() - started
    expect(answers.every((r) => r.status === 202)).toBe(true)
    await sleep(600)
    // A read is one page here (few events); 500 ms between woken reads at most.
    expect(runtime.events!.reads() - reads).toBeLessThanOrEqual(Math.ceil((elapsed + 600) / 500) + 1)
    expect(runtime.events!.reads() - reads).toBeGreaterThanOrEqual(1)
  })
})

describe("withApiKey", () => {
  it("answers 404 when no key is configured, before looking at any header", async () => {
    let ran = false
    const route = withApiKey(() => undefined, () => {
      ran = true
      return Promise.resolve(new Response(null, { status: 204 }))
    })
    const res = await route(new NextRequest("http://localhost/api/webhooks/service", { method: "POST", headers: { "x-api-key": KEY } }), { params: Promise.resolve({}) })
    expect(res.status).toBe(404)
    expect(((await res.json()) as { code: string }).code).toBe("not_found")
    expect(ran).toBe(false)
  })
})
