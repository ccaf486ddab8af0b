import { randomUUID } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import http from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import path from "node:path"
import { NextRequest } from "next/server"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { sessionCookie } from "@/test/session"

// One trade, traced: a local OTLP/HTTP receiver started here gets the spans the console
// exports, and one trace covers the console request, the intent write, the placement and
// the service call. Before tracing starts, nothing is recorded.
const dataDir = mkdtempSync(path.join(tmpdir(), "console-tracing-"))
const SECRET = "tracing-tests-secret-0123456789-abcdefghijklmn"
process.env.DATA_DIR = dataDir
process.env.NEXTAUTH_SECRET = SECRET
process.env.LOG_LEVEL = "info"

interface OtlpSpan {
  traceId: string
  spanId: string
  parentSpanId?: string
  name: string
  attributes?: { key: string; value: Record<string, unknown> }[]
}
interface OtlpExport {
  resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[]
}

const received: OtlpSpan[] = []
const receiver = http.createServer((req, res) => {
  const chunks: Buffer[] = []
  req.on("data", (c: Buffer) => chunks.push(c))
  req.on("end", () => {
    if (req.method === "POST" && req.url === "/v1/traces") {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as OtlpExport
      for (const r of body.resourceSpans) for (const s of r.scopeSpans) received.push(...s.spans)
    }
    res.writeHead(200, { "content-type": "application/json" }).end("{}")
  })
})

let endpoint = ""
beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
  endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`
})
afterAll(async () => {
  await new Promise<void>((resolve) => receiver.close(() => resolve()))
  rmSync(dataDir, { recursive: true, force: true })
})

const attribute = (span: OtlpSpan, key: string) => {
  const value = span.attributes?.find((a) => a.key === key)?.value
  return value ? Object.values(value)[0] : undefined
}

async function trade(cookie: string): Promise<{ res: Response; refId: string }> {
  const { consoleRuntime } = await import("@/lib/console/runtime")
  const runtime = await consoleRuntime()
  const profileId = (await runtime.upstream.listProfiles()).items[0]!.id
  const quote = (await runtime.quotes.get(["BTCUSD"])).quotes.find((q) => q.side === "BUY")!
  // Served to the trader, as GET /api/quotes serves it: an execution needs a quote the console served.
  const { rememberServed } = await import("@/lib/console/served-quotes")
  await rememberServed(runtime.db, { email: "trader@example.com", role: "trader" }, [quote])
  const { POST } = await import("@/app/api/profiles/[profileId]/quote-executions/route")
  const refId = randomUUID()
  const req = new NextRequest(`http://localhost/api/profiles/${profileId}/quote-executions`, {
    method: "POST",
    headers: { cookie, origin: "http://localhost", "content-type": "application/json" },
    body: JSON.stringify({ quote_id: quote.id, base_amount: "0.00123", ref_id: refId }),
  })
  return { res: await POST(req, { params: Promise.resolve({ profileId }) }), refId }
}

describe("traces over OTLP/HTTP", () => {
  it("without a tracer provider nothing is recorded: no trace id on an answer", async () => {
    const cookie = await sessionCookie("trader", { secret: SECRET })
    const { res } = await trade(cookie)
    expect(res.status).toBe(200)
    expect(res.headers.get("x-trace-id")).toBeNull()
  }, 120_000)

  it("one trade is one trace: the console request, the intent write, the placement and the service call, with no email, amount or secret", async () => {
    const { startTracing } = await import("@/lib/tracing-sdk")
    const provider = startTracing({ endpoint, serviceName: "console-test", batchDelayMs: 100 })
    const cookie = await sessionCookie("trader", { secret: SECRET })
    const logged: string[] = []
    const spy = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
      logged.push(String(chunk))
      return true
    })
    let res: Response
    let refId: string
    try {
      ;({ res, refId } = await trade(cookie))
    } finally {
      spy.mockRestore()
    }
    expect(res.status).toBe(200)
    const traceId = res.headers.get("x-trace-id")
    expect(traceId).toMatch(/^[0-9a-f]{32}$/)
    await provider.forceFlush()
    const spans = received.filter((s) => s.traceId === traceId)
    const names = spans.map((s) => s.name)
    expect(names).toEqual(
      expect.arrayContaining([
        "console POST /api/profiles/[profileId]/quote-executions",
        "console.intent.write",
        "console.intent.place",
        "console.intent.settle",
        "upstream createQuoteExecution",
      ]),
    )
    // Database query groups are marked as such, by group.
    const settle = spans.find((s) => s.name === "console.intent.settle")!
    expect(attribute(settle, "console.db.group")).toBe("intent.settle")
    expect(attribute(settle, "db.system.name")).toBe("postgresql")
    const request = spans.find((s) => s.name.startsWith("console POST"))!
    expect(attribute(request, "console.role")).toBe("trader")
    expect(String(attribute(request, "http.response.status_code"))).toBe("200")
    const call = spans.find((s) => s.name === "upstream createQuoteExecution")!
    expect(attribute(call, "upstream.ref_id")).toBe(refId)
    expect(attribute(call, "upstream.retry")).toBe(false)
    // Every span of the trade hangs off the console request.
    const ids = new Set(spans.map((s) => s.spanId))
    expect(spans.filter((s) => s !== request).every((s) => s.parentSpanId && ids.has(s.parentSpanId))).toBe(true)
    const everything = JSON.stringify(spans)
    for (const secret of ["trader@example.com", "0.00123", "Bearer", SECRET]) expect(everything).not.toContain(secret)
    // The log lines written during the trade carry its trace id.
    expect(logged.some((line) => line.includes(`"traceId":"${traceId}"`) && line.includes("intent.succeeded"))).toBe(true)
  }, 120_000)

  it("at shutdown the process's exit waits until the spans still batched have gone out", async () => {
    const { flushTracesBeforeExit, inSpan } = await import("@/lib/tracing")
    const exits: unknown[] = []
    const exitSpy = vi.spyOn(process, "exit").mockImplementation(((code?: number) => {
      exits.push(code)
    }) as typeof process.exit)
    try {
      const name = `console.flush-check.${randomUUID()}`
      await inSpan(name, {}, () => Promise.resolve(undefined))
      flushTracesBeforeExit(10_000)
      process.exit(143)
      await vi.waitFor(() => expect(exits).toEqual([143]), { timeout: 15_000 })
      expect(received.some((s) => s.name === name)).toBe(true)
    } finally {
      exitSpy.mockRestore()
    }
  }, 30_000)
})
