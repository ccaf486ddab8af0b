import { type ChildProcess, spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import path from "node:path"
import { eq, inArray } from "drizzle-orm"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { notifyPasskeyAdded } from "@/lib/console/notify/account"
import { addTeamChannel } from "@/lib/console/notify/settings"
import { type NotificationWorker, createNotificationWorker } from "@/lib/console/notify/worker"
import { type Database, openDatabase } from "@/lib/db/client"
import { consoleNotificationDeliveries, consoleNotifications } from "@/lib/db/schema"
import { testDatabaseUrl } from "@/lib/env"
import { createEmptyPostgresDatabase } from "@/test/db"
import { type HttpReceiver, startHttpReceiver } from "@/test/notify-receivers"
import canaries from "@/e2e/canaries.json" with { type: "json" }

/**
 * The outbox's promises against real receivers on Postgres: a receiver down for a whole
 * minute (not listening at all), then up, gets every notification, each delivery id once
 * after it drops repeats; and a worker in a process of its own, killed with SIGKILL while
 * the receiver holds its request, loses nothing: another worker sends it again under the
 * same id, and the receiver keeps one.
 */

const OUTAGE_MS = 60_000
const ADMIN = { email: "admin@example.com", role: "admin" as const }
const WEBHOOK_SECRET = canaries.NOTIFY_WEBHOOK_SECRET

/** Polls `check` until it holds (or `ms` passes, then fails with `what`). */
async function until(what: string, check: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting: ${what}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

describe.skipIf(!testDatabaseUrl())("delivery proofs on Postgres", () => {
  let database: Database
  let url: string
  let drop: () => Promise<void>
  let hook: HttpReceiver
  let chat: HttpReceiver
  const workers: NotificationWorker[] = []
  const children: ChildProcess[] = []

  beforeAll(async () => {
    const empty = await createEmptyPostgresDatabase()
    url = empty.url
    drop = () => empty.drop()
    database = await openDatabase({ url })
    await database.migrate()
    hook = await startHttpReceiver({ secret: WEBHOOK_SECRET, path: "/hooks/proof" })
    chat = await startHttpReceiver({ path: "/services/T0PROOF/B0PROOF/proof-token" })
    await addTeamChannel(database.db, ADMIN, { name: "Proof hook", type: "webhook", url: hook.url, secret: WEBHOOK_SECRET, kinds: ["passkey_added"] })
    await addTeamChannel(database.db, ADMIN, { name: "Proof chat", type: "chat", url: chat.url, kinds: ["passkey_added"] })
  })
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
    for (const w of workers) await w.stop()
    await Promise.all([hook?.close(), chat?.close()])
    await database?.close()
    await drop?.()
  })

  function worker(options: { backoffMs?: number; maxBackoffMs?: number; claimMs?: number; leaseMs?: number } = {}): NotificationWorker {
    const w = createNotificationWorker({
      db: database.db,
      id: `proof-${randomUUID().slice(0, 8)}`,
      solo: false,
      pollMs: 200,
      publicUrl: () => "https://console.example.test",
      smtp: () => undefined,
      maxAttempts: 30,
      ...options,
    })
    workers.push(w)
    return w
  }

  /** A real notification (a passkey added), in its own transaction; answers its deliveries' ids. */
  async function passkeyAdded(): Promise<string[]> {
    const id = `cred-${randomUUID()}`
    await database.db.transaction(async (tx) => notifyPasskeyAdded(tx, { id, email: ADMIN.email, name: `Key ${id.slice(5, 13)}` }, new Date()))
    const [n] = await database.db.select().from(consoleNotifications).where(eq(consoleNotifications.subject, id))
    const rows = await database.db.select().from(consoleNotificationDeliveries).where(eq(consoleNotificationDeliveries.notificationId, n!.id))
    return rows.map((r) => r.id)
  }

  const deliveries = (ids: string[]) => database.db.select().from(consoleNotificationDeliveries).where(inArray(consoleNotificationDeliveries.id, ids))

  it(
    "both receivers down for 60 s (not listening), then up: every notification delivered, each delivery id once at the receiver after it drops repeats",
    async () => {
      const w = worker({ backoffMs: 1_000, maxBackoffMs: 8_000 })
      w.start()
      await Promise.all([hook.unlisten(), chat.unlisten()])
      const downAt = Date.now()
      // Written before and during the outage.
      const ids = [...(await passkeyAdded()), ...(await passkeyAdded()), ...(await passkeyAdded())]
      expect(ids).toHaveLength(6)
      // Each has been tried and refused, at least twice, while nothing listens.
      await until("every delivery tried twice while down", async () => (await deliveries(ids)).every((d) => d.attempts >= 2 && d.state === "pending"), OUTAGE_MS - 10_000)
      for (const d of await deliveries(ids)) expect(d.lastError).toBe("could not deliver (ECONNREFUSED)")
      const later = [...(await passkeyAdded()), ...(await passkeyAdded())]
      const all = [...ids, ...later]
      // The rest of the minute.
      await new Promise((r) => setTimeout(r, Math.max(0, OUTAGE_MS - (Date.now() - downAt))))
      expect((await deliveries(all)).filter((d) => d.state === "sent")).toHaveLength(0)
      await Promise.all([hook.listen(), chat.listen()])

      await until("every delivery sent after the receivers came back", async () => (await deliveries(all)).every((d) => d.state === "sent"), 60_000)
      const rows = await deliveries(all)
      expect(rows.filter((d) => d.state === "parked")).toHaveLength(0)
      // Each delivery once, at the receiver of its channel, whatever the repeats.
      const hookIds = rows.filter((d) => d.channel === "webhook").map((d) => d.id).sort()
      const chatIds = rows.filter((d) => d.channel === "chat").map((d) => d.id).sort()
      expect(hookIds).toHaveLength(5)
      expect(chatIds).toHaveLength(5)
      expect([...hook.kept.keys()].filter((id) => all.includes(id)).sort()).toEqual(hookIds)
      expect([...chat.kept.keys()].filter((id) => all.includes(id)).sort()).toEqual(chatIds)
      expect(hook.badSignatures).toBe(0)
      // Every notification reached each receiver once: five distinct notification ids each.
      const notificationIds = (r: HttpReceiver, field: (body: Record<string, unknown>) => unknown) =>
        new Set([...r.kept.entries()].filter(([id]) => all.includes(id)).map(([, got]) => field(JSON.parse(got.body) as Record<string, unknown>)))
      expect(notificationIds(hook, (b) => (b.data as { notification_id: string }).notification_id).size).toBe(5)
      expect(notificationIds(chat, (b) => b.text).size).toBe(5)
      await w.stop()
    },
    OUTAGE_MS + 120_000,
  )

  it("kill -9 of a worker in its own process while the receiver holds its request: another worker sends it under the same id, and the receiver keeps one", async () => {
    for (const w of workers.splice(0)) await w.stop()
    hook.mode = "hold"
    chat.mode = "hold"
    const child = spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", path.join("test", "notify-worker-process.ts")], {
      cwd: path.resolve(import.meta.dirname, "../../.."),
      env: { ...process.env, NOTIFY_PROOF_DATABASE_URL: url, NOTIFY_PROOF_CLAIM_MS: "2000", NOTIFY_PROOF_LEASE_MS: "2000", LOG_LEVEL: "warn" },
      stdio: ["ignore", "pipe", "pipe"],
    })
    children.push(child)
    let output = ""
    child.stdout.on("data", (c: Buffer) => (output += c.toString()))
    child.stderr.on("data", (c: Buffer) => (output += c.toString()))
    await until("the child worker holds the lease", () => Promise.resolve(output.includes("ready\n")), 60_000)

    const arrived = hook.next()
    const ids = await passkeyAdded()
    const webhookDelivery = (await deliveries(ids)).find((d) => d.channel === "webhook")!
    const first = await arrived
    expect(first.headers["webhook-id"]).toBe(webhookDelivery.id)
    // The receiver has it (kept) and holds its answer: the child is mid-send. Kill it.
    expect(hook.kept.has(webhookDelivery.id)).toBe(true)
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once("exit", (_code, signal) => resolve(signal)))
    expect(child.kill("SIGKILL")).toBe(true)
    expect(await exited).toBe("SIGKILL")
    // It claimed them and died before writing anything more.
    expect((await deliveries(ids)).every((d) => d.state === "pending" && d.attempts >= 1)).toBe(true)

    hook.mode = "up"
    chat.mode = "up"
    const w = worker({ claimMs: 2_000, leaseMs: 2_000, backoffMs: 100 })
    w.start()
    await until("the deliveries sent by the second worker", async () => (await deliveries(ids)).every((d) => d.state === "sent"), 30_000)
    const copies = hook.received.filter((r) => r.headers["webhook-id"] === webhookDelivery.id)
    expect(copies.length).toBeGreaterThanOrEqual(2)
    expect(new Set(copies.map((c) => c.body)).size).toBe(1)
    expect([...hook.kept.keys()].filter((id) => id === webhookDelivery.id)).toHaveLength(1)
    expect(hook.badSignatures).toBe(0)
    const [sent] = await deliveries([webhookDelivery.id])
    expect(sent).toMatchObject({ state: "sent", lastError: null })
    expect(sent!.attempts).toBeGreaterThanOrEqual(2)
    await w.stop()
  }, 120_000)
})
