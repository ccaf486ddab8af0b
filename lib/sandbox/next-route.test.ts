import { mkdtempSync, rmSync } from "node:fs"
import { type IncomingMessage, type Server, type ServerResponse, createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import path from "node:path"
import { NodeNextRequest, NodeNextResponse } from "next/dist/server/base-http/node"
import { sendResponse } from "next/dist/server/send-response"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { ConsoleRuntime } from "@/lib/console/runtime"

// The sandbox as the console serves it at /sandbox: the real route module
// (app/sandbox/[...path]/route.ts) in sandbox mode on a fresh PGlite folder, its Response
// written to the socket by Next's own sendResponse, with the 500 fallback Next's app-route
// handler uses when that fails before any header was sent (next/dist/build/templates/app-route.js).
const dataDir = mkdtempSync(path.join(tmpdir(), "console-sandbox-route-"))
process.env.DATA_DIR = dataDir
process.env.NEXTAUTH_SECRET = "sandbox-route-tests-secret-0123456789-abcdef"
process.env.LOG_LEVEL = "silent"

type RouteHandler = (request: Request) => Promise<Response>

let runtime: ConsoleRuntime
let server: Server
let origin: string
let credentials: { clientId: string; clientSecret: string }

async function toRequest(req: IncomingMessage, base: string): Promise<Request> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  const headers = new Headers()
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === "string") headers.set(name, value)
  }
  const method = req.method ?? "GET"
  return new Request(new URL(req.url ?? "/", base), {
    method,
    headers,
    body: method === "GET" || method === "HEAD" ? undefined : Buffer.concat(chunks),
  })
}

beforeAll(async () => {
  const { consoleRuntime } = await import("@/lib/console/runtime")
  runtime = await consoleRuntime()
  credentials = await runtime.sandbox!.ensureClient()
  const route = (await import("@/app/sandbox/[...path]/route")) as unknown as Record<string, RouteHandler>
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const nextReq = new NodeNextRequest(req)
      const nextRes = new NodeNextResponse(res)
      try {
        const handler = route[req.method ?? "GET"]!
        await sendResponse(nextReq, nextRes, await handler(await toRequest(req, origin)))
      } catch {
        if (!res.headersSent) await sendResponse(nextReq, nextRes, new Response(null, { status: 500 }))
        else if (!res.writableEnded && !res.destroyed) res.end()
      }
    })()
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}, 60_000)

afterAll(async () => {
  await new Promise<void>((resolve) => {
    server?.close(() => resolve())
    server?.closeAllConnections()
  })
  await runtime?.sandbox?.stop()
  rmSync(dataDir, { recursive: true, force: true })
})

async function token(): Promise<string> {
  const response = await fetch(`${origin}/sandbox/oauth2/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "client_credentials", client_id: credentials.clientId, client_secret: credentials.clientSecret }),
  })
  expect(response.status).toBe(200)
  return ((await response.json()) as { access_token: string }).access_token
}

describe("the sandbox through the Next route (app/sandbox/[...path])", () => {
  it("commit_then_fail with drop: the record is stored and the connection closes without any response", async () => {
    const auth = { authorization: `Bearer ${await token()}`, "content-type": "application/json" }
    const put = await fetch(`${origin}/sandbox/admin/faults`, {
      method: "PUT",
      headers: auth,
      body: JSON.stringify({ rules: [{ operation: "create_conversion", fault: "commit_then_fail", rate: 1, status: "drop" }] }),
    })
    expect(put.status).toBe(200)
    const profile = (await runtime.upstream.listProfiles()).items[0]!.id
    const body = JSON.stringify({ profile_id: profile, amount: "4.20", source_asset: "USD", target_asset: "USDG", ref_id: "next-drop" })

    // No status line, no 500: the socket closes, as a dropped connection does.
    const dropped = await fetch(`${origin}/sandbox/v2/conversion/stablecoins`, { method: "POST", headers: auth, body }).then(
      (response) => `answered ${response.status}`,
      (error: unknown) => error,
    )
    expect(dropped).toBeInstanceOf(TypeError)
    expect(((dropped as TypeError).cause as { code?: string } | undefined)?.code).toBe("UND_ERR_SOCKET")

    await fetch(`${origin}/sandbox/admin/faults`, { method: "PUT", headers: auth, body: JSON.stringify({ rules: [] }) })
    const listed = await fetch(`${origin}/sandbox/v2/conversion/stablecoins?ref_id=next-drop`, { headers: auth })
    expect(((await listed.json()) as { items: unknown[] }).items).toHaveLength(1)
    const retry = await fetch(`${origin}/sandbox/v2/conversion/stablecoins`, { method: "POST", headers: auth, body })
    expect(retry.status).toBe(409)
  })
})
