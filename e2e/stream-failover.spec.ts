import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { createWriteStream, mkdirSync, mkdtempSync, rmSync } from "node:fs"
import net from "node:net"
import { tmpdir } from "node:os"
import path from "node:path"
import { expect, test } from "@playwright/test"
import pg from "pg"
import canaries from "./canaries.json" with { type: "json" }
import { openDesk } from "./desk"
import { DEMO_PASSWORD, emailOf, signIn } from "./helpers"

// Issue 37: two console instances on one Postgres database behind one URL (a small TCP
// proxy started here, as a load balancer would be), the page's stream on the first. The
// first is killed (SIGKILL: no goodbye on its streams): the page says its prices are not
// live, polls (quotes and the inbox) until the stream is back, and gets its stream again
// from the other instance, without a reload. The playwright project `failover` runs this
// spec alone: its servers are its own (ports E2E_PORT+90..+92), on a database it creates.

const base = Number(process.env.E2E_PORT ?? 3100) + 90
const proxyPort = base
const instancePorts = [base + 1, base + 2] as const
const publicUrl = `http://127.0.0.1:${proxyPort}`
/** The Postgres server of the unit tests (TEST_DATABASE_URL, its database left out), else the local one. */
const serverUrl = (() => {
  const url = new URL(process.env.TEST_DATABASE_URL || "postgres://postgres@127.0.0.1:5432")
  url.pathname = ""
  return url.toString().replace(/\/$/, "")
})()

interface Instance {
  port: number
  child: ChildProcess
  dataDir: string
  alive: boolean
}

const instances: Instance[] = []
let proxy: net.Server | null = null
/** Which instance each connection the proxy made went to, in order. */
const connections: number[] = []
const databaseName = `console_e2e_failover_${randomBytes(4).toString("hex")}`

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: `${serverUrl}/postgres` })
  await client.connect()
  try {
    return await fn(client)
  } finally {
    await client.end()
  }
}

/** `npm start` (as e2e-server.mjs does) in its own process group, so the kill takes the whole server. */
function startInstance(port: number): Instance {
  const dataDir = mkdtempSync(path.join(tmpdir(), "console-e2e-failover-"))
  mkdirSync("test-results", { recursive: true })
  const log = createWriteStream(path.join("test-results", `server-${port}.log`))
  const child = spawn("npm", ["start", "--", "-p", String(port), "-H", "127.0.0.1"], {
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      ...canaries,
      DATA_DIR: dataDir,
      DATABASE_URL: `${serverUrl}/${databaseName}`,
      NODE_ENV: "production",
      CONSOLE_MODE: "sandbox",
      DEMO_PASSWORD,
      NEXT_TELEMETRY_DISABLED: "1",
      NEXTAUTH_URL: publicUrl,
      SANDBOX_SETTLE_DELAY_MS: "1500",
      LOG_LEVEL: "info",
    },
  })
  child.stdout?.pipe(log)
  child.stderr?.pipe(log)
  const instance: Instance = { port, child, dataDir, alive: true }
  child.on("exit", () => (instance.alive = false))
  return instance
}

async function healthy(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const ok = await fetch(`http://127.0.0.1:${port}/api/health/live`)
      .then((r) => r.ok)
      .catch(() => false)
    if (ok) return
    if (Date.now() > deadline) throw new Error(`the instance on ${port} did not come up`)
    await new Promise((resolve) => setTimeout(resolve, 500))
  }
}

/** A TCP proxy: each connection goes to the first instance that takes it (the first while it lives). */
function startProxy(): Promise<net.Server> {
  const server = net.createServer((client) => {
    client.on("error", () => undefined)
    const tryAt = (i: number) => {
      const port = instancePorts[i]
      if (port === undefined) return client.destroy()
      const upstream = net.connect(port, "127.0.0.1")
      let connected = false
      upstream.on("connect", () => {
        connected = true
        connections.push(port)
        client.pipe(upstream)
        upstream.pipe(client)
      })
      upstream.on("error", () => {
        if (!connected) tryAt(i + 1)
        else client.destroy()
      })
      upstream.on("close", () => {
        if (connected) client.destroy()
      })
      client.on("close", () => upstream.destroy())
    }
    tryAt(0)
  })
  return new Promise((resolve, reject) => {
    server.once("error", reject)
    server.listen(proxyPort, "127.0.0.1", () => resolve(server))
  })
}

function stopInstance(instance: Instance, signal: NodeJS.Signals): void {
  if (!instance.alive || instance.child.pid === undefined) return
  try {
    process.kill(-instance.child.pid, signal)
  } catch {
    // Already gone.
  }
}

test.describe.configure({ mode: "serial" })

test.beforeAll(async () => {
  test.setTimeout(300_000)
  await admin((c) => c.query(`create database ${databaseName}`))
  // One after the other: the first creates the schema and the sandbox's records.
  for (const port of instancePorts) {
    const instance = startInstance(port)
    instances.push(instance)
    await healthy(port, 180_000)
  }
  proxy = await startProxy()
})

test.afterAll(async () => {
  proxy?.close()
  for (const instance of instances) stopInstance(instance, "SIGTERM")
  await Promise.all(
    instances.map((i) => (i.alive ? new Promise((resolve) => i.child.once("exit", resolve)) : Promise.resolve())),
  )
  for (const instance of instances) rmSync(instance.dataDir, { recursive: true, force: true })
  await admin((c) => c.query(`drop database if exists ${databaseName} with (force)`)).catch(() => undefined)
})

test("the instance a page's stream is on dies: the page says its prices are not live, polls, and streams again from the other without a reload", async ({ page }) => {
  test.setTimeout(120_000)
  await page.goto("/sign-in")
  await signIn(page, emailOf("trader"), DEMO_PASSWORD)
  await expect(page.getByTestId("staff-role")).toHaveText("trader")
  await openDesk(page, { profile: "Treasury", market: "BTCUSD" })
  const stream = page.getByTestId("console-stream")
  await expect(stream).toHaveAttribute("data-state", "live", { timeout: 30_000 })
  await expect(stream).toHaveAttribute("data-topics", "approvals,inbox,notifications")
  await expect(page.getByTestId("quotes-not-live")).toHaveCount(0)
  // Everything so far, the stream included, went to the first instance.
  expect(new Set(connections)).toEqual(new Set([instancePorts[0]]))

  // What the page asks for while its stream is down.
  const asked: string[] = []
  page.on("request", (request) => {
    const url = new URL(request.url())
    asked.push(url.pathname)
  })
  // A reload would lose this.
  await page.evaluate(() => ((window as unknown as { failoverMark: string }).failoverMark = "same page"))

  stopInstance(instances[0]!, "SIGKILL")

  // Not live: said on the page, and the prices and the inbox are polled meanwhile.
  await expect(stream).toHaveAttribute("data-state", "down")
  await expect(page.getByTestId("quotes-not-live")).toBeVisible()
  await expect.poll(() => asked.filter((p) => p === "/api/quotes").length).toBeGreaterThan(0)
  await expect.poll(() => asked.filter((p) => p === "/api/notifications/inbox").length).toBeGreaterThan(0)

  // Back, from the other instance, on the same page.
  await expect(stream).toHaveAttribute("data-state", "live", { timeout: 30_000 })
  await expect(stream).toHaveAttribute("data-topics", "approvals,inbox,notifications")
  await expect(page.getByTestId("quotes-not-live")).toHaveCount(0)
  expect(connections).toContain(instancePorts[1])
  expect(await page.evaluate(() => (window as unknown as { failoverMark?: string }).failoverMark)).toBe("same page")
  // And the quotes keep coming by push: the held quote changes with no /api/quotes asked for.
  const polled = asked.filter((p) => p === "/api/quotes").length
  const buy = page.getByTestId("quote-BUY")
  await expect(buy).toHaveAttribute("data-quote-id", /.+/)
  const before = await buy.getAttribute("data-quote-id")
  await expect(buy).not.toHaveAttribute("data-quote-id", before ?? "", { timeout: 15_000 })
  expect(asked.filter((p) => p === "/api/quotes").length - polled).toBeLessThanOrEqual(1)
})
