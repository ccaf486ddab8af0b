import { randomUUID } from "node:crypto"
import { and, eq, sql } from "drizzle-orm"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import type { Staff } from "@/lib/auth/roles"
import { admitSso, ensureStaffBootstrap } from "@/lib/auth/staff"
import { approveRequest, rejectRequest } from "@/lib/console/approvals/decisions"
import { consoleEventHandler } from "@/lib/console/event-effects"
import { notifyPasskeyAdded } from "@/lib/console/notify/account"
import { requestHref } from "@/lib/console/notify/approvals"
import { checkEventsLag } from "@/lib/console/notify/events-lag"
import { listChannels, listDeliveries, markRead, readInbox, savePreferences } from "@/lib/console/notify/inbox"
import { intentHref } from "@/lib/console/notify/orders"
import { addTeamChannel, readNotifySettings, refusedSettingsChange, removeTeamChannel, saveNotifySettings } from "@/lib/console/notify/settings"
import { statementHref, tieOutCutoff } from "@/lib/console/notify/statements"
import { reconcileIntents } from "@/lib/console/reconciler"
import { createSnapshotJob } from "@/lib/console/statements/snapshots"
import { type NotificationWorker, createNotificationWorker, retryDeliveries } from "@/lib/console/notify/worker"
import { submitConversion } from "@/lib/console/submission"
import { consoleIntents, consoleNotificationChannels, consoleNotificationDeliveries, consoleNotificationRecipients, consoleNotifications } from "@/lib/db/schema"
import { channelBodySchema, notifySettingsBodySchema } from "@/lib/schemas/notify"
import type { UpstreamClient } from "@/lib/upstream"
import { savePolicy } from "@/lib/console/policy"
import { ApprovalsFixture, TEST_POLICY, checker, otherTrader } from "@/test/approvals"
import { testDrivers } from "@/test/db"
import { type HttpReceiver, startHttpReceiver, startSmtp } from "@/test/notify-receivers"
import canaries from "@/e2e/canaries.json" with { type: "json" }

// Email deliveries are written only when SMTP_URL is set (read once, on the first env()).
vi.hoisted(() => {
  process.env.SMTP_URL = "smtp://console:smtp-pass-canary-0b7d2e@127.0.0.1:2525"
  process.env.MAIL_FROM = "Treasury console <console@example.com>"
})

const PUBLIC_URL = "https://console.example.test"
const SMTP_PASSWORD = "smtp-pass-canary-0b7d2e"
const CHAT_TOKEN = "T00CHAT/B00TOKEN/chat-token-canary-5e1a9c"
const WEBHOOK_SECRET = canaries.NOTIFY_WEBHOOK_SECRET
const NEW_KINDS = ["large_order", "outcome_unknown", "statement_difference", "events_lagging"] as const

/** The outbox against real receivers: an SMTP server, a chat webhook, a Standard Webhooks receiver. */
describe.each(testDrivers())("notifications on %s", (driver) => {
  const f = new ApprovalsFixture(driver)
  let smtp: Awaited<ReturnType<typeof startSmtp>>
  let chat: HttpReceiver
  let hook: HttpReceiver
  const workers: NotificationWorker[] = []
  const abandoned = new Set<NotificationWorker>()

  beforeAll(async () => {
    // Who may approve is read from the staff table: the sandbox's demo users as the console
    // bootstraps them at start, and a trader whose first single sign-on made their row.
    await ensureStaffBootstrap(f.h.db)
    await admitSso(f.h.db, otherTrader.email, otherTrader.role)
    smtp = await startSmtp({ user: "console", pass: SMTP_PASSWORD })
    chat = await startHttpReceiver({ path: `/services/${CHAT_TOKEN}` })
    hook = await startHttpReceiver({ secret: WEBHOOK_SECRET, path: "/hooks/treasury?token=hook-token-canary-44aa" })
    await addTeamChannel(f.h.db, checker, { name: "Treasury chat", type: "chat", url: chat.url, kinds: ["approval_waiting", "approval_decided", ...NEW_KINDS] })
    await addTeamChannel(f.h.db, checker, { name: "Ops system", type: "webhook", url: hook.url, secret: WEBHOOK_SECRET, kinds: ["approval_waiting", ...NEW_KINDS] })
  })
  afterAll(async () => {
    for (const w of workers) w.abandon()
    await Promise.all([smtp?.close(), chat?.close(), hook?.close()])
  })

  /** A new worker (another instance); the earlier ones stop cleanly and give the lease up, unless abandoned. */
  async function worker(options: { id?: string; backoffMs?: number; claimMs?: number; leaseMs?: number; maxAttempts?: number } = {}): Promise<NotificationWorker> {
    for (const earlier of workers.splice(0)) if (!abandoned.has(earlier)) await earlier.stop()
    const w = createNotificationWorker({
      db: f.h.db,
      id: options.id ?? `instance-${randomUUID().slice(0, 8)}`,
      solo: driver === "pglite",
      pollMs: 60_000,
      publicUrl: () => PUBLIC_URL,
      smtp: () => ({ url: smtp.url, from: "Treasury console <console@example.com>" }),
      backoffMs: options.backoffMs ?? 20,
      claimMs: options.claimMs ?? 2_000,
      leaseMs: options.leaseMs ?? 60_000,
      maxAttempts: options.maxAttempts ?? 10,
    })
    workers.push(w)
    return w
  }

  /** Ticks until nothing is due (or `ms` passes); answers the deliveries still pending. */
  async function drain(w: NotificationWorker, ms = 10_000): Promise<number> {
    const until = Date.now() + ms
    for (;;) {
      await w.tick()
      const pending = await f.h.db.select().from(consoleNotificationDeliveries).where(eq(consoleNotificationDeliveries.state, "pending"))
      if (pending.length === 0 || Date.now() > until) return pending.length
      await new Promise((r) => setTimeout(r, 25))
    }
  }

  async function ask(amount = "150.00", who: Staff = f.me): Promise<string> {
    const asked = await submitConversion(f.h, who, { profile_id: f.profileId, amount, source_asset: "USD", target_asset: "PYUSD", ref_id: randomUUID() })
    if (asked.kind !== "request") throw new Error("expected a request")
    return asked.request.id
  }

  it("a request waiting for approval is emailed to each person who may approve it, with a deep link to it and no amount in the subject", async () => {
    const id = await ask("150.00")
    expect(await drain(await worker())).toBe(0)
    const mails = smtp.mails.filter((m) => m.decoded.includes(id))
    const to = mails.flatMap((m) => m.to).sort()
    // The staff table's active traders and admins (the demo users, the trader single sign-on admitted); never the maker.
    expect(to).toEqual(expect.arrayContaining([checker.email, "trader@example.com", otherTrader.email]))
    expect(to).not.toContain(f.me.email)
    expect(new Set(to).size).toBe(to.length)
    const mail = mails.find((m) => m.to.includes(checker.email))!
    expect(mail.subject).toBe("Approval waiting: conversion request")
    expect(mail.subject).not.toMatch(/\d/)
    // Plain text and HTML, each with the link to the request on the approvals page.
    expect(mail.raw).toMatch(/Content-Type: text\/plain/i)
    expect(mail.raw).toMatch(/Content-Type: text\/html/i)
    const link = `${PUBLIC_URL}${requestHref(id)}`
    expect(mail.decoded).toContain(`Open it in the console: ${link}`)
    expect(mail.decoded).toContain(`href="${link}"`)
    expect(mail.decoded).toContain("150.00 USD")
  })

  it("a request whose tier only admins may approve waits in the admins' inboxes only", async () => {
    await savePolicy(f.h.db, checker, { ...TEST_POLICY, approval_tiers: [{ at_or_over: { USD: "100.00" }, approvers: 1, roles: ["admin"] }] })
    try {
      const id = await ask("155.00")
      const [notification] = await f.h.db.select().from(consoleNotifications).where(eq(consoleNotifications.subject, id))
      const told = (await f.h.db.select().from(consoleNotificationRecipients).where(eq(consoleNotificationRecipients.notificationId, notification!.id))).map((r) => r.email)
      expect(told).toEqual([checker.email])
    } finally {
      await savePolicy(f.h.db, checker, TEST_POLICY)
    }
  })

  it("the chat channel gets the text, and the webhook receiver verifies the Standard Webhooks signature with the library", async () => {
    const id = await ask("160.00")
    expect(await drain(await worker())).toBe(0)
    const [notification] = await f.h.db.select().from(consoleNotifications).where(eq(consoleNotifications.subject, id))
    const chatMessage = [...chat.kept.values()].map((r) => JSON.parse(r.body) as { text: string; blocks: unknown[] }).find((m) => m.text.includes(id))
    expect(chatMessage?.text).toBe(`Approval waiting: conversion request: ${notification!.detail} ${PUBLIC_URL}${requestHref(id)}`)
    expect(chatMessage?.blocks.length).toBeGreaterThan(0)
    const signed = [...hook.kept.values()].find((r) => r.body.includes(id))!
    expect(hook.badSignatures).toBe(0)
    expect(signed.headers["webhook-id"]).toMatch(/^[0-9a-f-]{36}$/)
    expect(JSON.parse(signed.body)).toMatchObject({ type: "notification.approval_waiting", data: { notification_id: notification!.id, url: `${PUBLIC_URL}${requestHref(id)}` } })
  })

  it("a request approved by one checker resolves the others' inbox items at once, and its maker hears of it", async () => {
    const id = await ask("170.00")
    const before = await readInbox(f.h.db, otherTrader.email)
    const item = before.items.find((i) => i.href === requestHref(id))!
    expect(item).toMatchObject({ kind: "approval_waiting", read: false, resolved: null })
    await approveRequest(f.h, checker, id, {}, { heldQuotes: f.heldQuotes })
    const after = await readInbox(f.h.db, otherTrader.email)
    expect(after.items.find((i) => i.id === item.id)?.resolved).toMatchObject({ by: checker.email, what: "approved" })
    const maker = await readInbox(f.h.db, f.me.email)
    expect(maker.items.find((i) => i.kind === "approval_decided" && i.href === requestHref(id))).toMatchObject({ title: "Your request was approved (conversion)", read: false })
    // Read and unread: the count follows.
    expect(await markRead(f.h.db, otherTrader.email, { ids: [item.id], read: true })).toBe(1)
    expect((await readInbox(f.h.db, otherTrader.email)).unread).toBe(after.unread - 1)
    // Another person's item is not theirs to mark.
    expect(await markRead(f.h.db, f.me.email, { ids: [item.id], read: true })).toBe(0)
  })

  it("a rejection is told to the maker with its reason; a person who turned a kind off gets it neither in the inbox nor by email", async () => {
    await savePreferences(f.h.db, f.me.email, [{ kind: "approval_decided", console: false, email: false }])
    const id = await ask("180.00")
    await rejectRequest(f.h.db, checker, id, { reason: "not today" })
    expect((await readInbox(f.h.db, f.me.email)).items.some((i) => i.href === requestHref(id) && i.kind === "approval_decided")).toBe(false)
    const [decided] = await f.h.db.select().from(consoleNotifications).where(eq(consoleNotifications.subject, id))
    expect(decided).toBeDefined()
    const emails = await f.h.db.select().from(consoleNotificationDeliveries).where(eq(consoleNotificationDeliveries.target, f.me.email))
    expect(emails).toEqual([])
    expect((await readInbox(f.h.db, otherTrader.email)).items.find((i) => i.href === requestHref(id))?.resolved).toMatchObject({ by: checker.email, what: "rejected" })
  })

  it("receiver down, then up: every notification delivered, each id once after dropping repeats; one that keeps failing is parked with its error, and a retry sends it", async () => {
    await drain(await worker())
    hook.mode = "down"
    const ids = [await ask("101.00"), await ask("102.00"), await ask("103.00")]
    const w = await worker({ backoffMs: 20, maxAttempts: 30 })
    // Each tried at least twice while the receiver is down, then it comes back.
    const webhooksPending = async () => (await listDeliveries(f.h.db, { state: "pending" })).filter((d) => d.channel === "webhook")
    const deadline = Date.now() + 10_000
    while (Date.now() < deadline && !(await webhooksPending()).every((d) => d.attempts >= 2)) {
      await w.tick()
      await new Promise((r) => setTimeout(r, 20))
    }
    const failing = await webhooksPending()
    expect(failing).toHaveLength(3)
    for (const d of failing) expect(d.last_error).toBe("receiver answered HTTP 503")
    hook.mode = "up"
    expect(await drain(w)).toBe(0)
    const got = [...hook.kept.values()].filter((r) => ids.some((id) => r.body.includes(id)))
    expect(got).toHaveLength(3)
    const notificationIds = got.map((r) => (JSON.parse(r.body) as { data: { notification_id: string } }).data.notification_id)
    expect(new Set(notificationIds).size).toBe(3)

    // Down for good: parked after the last attempt, with its error, and visible.
    hook.mode = "down"
    const parkedId = await ask("104.00")
    const few = await worker({ maxAttempts: 2, backoffMs: 5 })
    await drain(few, 3_000)
    const parked = (await listDeliveries(f.h.db, { state: "parked" })).find((d) => d.channel === "webhook" && d.title.startsWith("Approval waiting"))!
    expect(parked).toMatchObject({ attempts: 2, last_error: "receiver answered HTTP 503", target: "Ops system" })
    hook.mode = "up"
    expect(await retryDeliveries(f.h.db, [parked.id])).toBe(1)
    expect(await drain(few)).toBe(0)
    expect([...hook.kept.values()].some((r) => r.body.includes(parkedId))).toBe(true)
  })

  it("a worker that dies mid-send loses nothing: another sends it again under the same id, and the receiver keeps it once", async () => {
    await drain(await worker())
    hook.mode = "hang"
    const id = await ask("110.00")
    const first = await worker({ claimMs: 300, leaseMs: 300 })
    const arrived = hook.next()
    void first.tick()
    const seen = await arrived
    expect(seen.body).toContain(id)
    // As kill -9: the worker stops where it is, writes nothing more, its lease runs out.
    first.abandon()
    abandoned.add(first)
    hook.mode = "up"
    const second = await worker({ claimMs: 300, leaseMs: 300 })
    await new Promise((r) => setTimeout(r, 350))
    expect(await drain(second)).toBe(0)
    const copies = hook.received.filter((r) => r.headers["webhook-id"] === seen.headers["webhook-id"])
    expect(copies.length).toBe(2)
    expect([...hook.kept.values()].filter((r) => r.body.includes(id))).toHaveLength(1)
    const [delivery] = await f.h.db.select().from(consoleNotificationDeliveries).where(eq(consoleNotificationDeliveries.id, String(seen.headers["webhook-id"])))
    expect(delivery).toMatchObject({ state: "sent", attempts: 2 })
  })

  it("a passkey added is told to its owner, by email too", async () => {
    await f.h.db.transaction(async (tx) => notifyPasskeyAdded(tx, { id: `cred-${randomUUID()}`, email: f.me.email, name: "Laptop" }, new Date()))
    expect(await drain(await worker())).toBe(0)
    expect((await readInbox(f.h.db, f.me.email)).items[0]).toMatchObject({ kind: "passkey_added", href: "/account" })
    expect(smtp.mails.some((m) => m.to.includes(f.me.email) && m.subject === "A passkey was added to your account")).toBe(true)
  })

  it("a completed deposit, read from the service's events, is told to the admins once, a replay included", async () => {
    const id = randomUUID()
    const event = { id: randomUUID(), type: "transfer.wire_deposit.completed", objectType: "transfer", object: { id, direction: "CREDIT", asset: "USD", amount: "2500" }, createdAt: new Date() }
    const handler = consoleEventHandler()
    for (let i = 0; i < 2; i++) await f.h.db.transaction(async (tx) => handler.apply(tx, event, undefined, new Date()))
    const items = (await readInbox(f.h.db, checker.email)).items.filter((i) => i.href === `/transfers/${id}`)
    expect(items).toHaveLength(1)
    expect(items[0]).toMatchObject({ kind: "deposit_completed", title: "Deposit completed", detail: `A deposit of 2,500.00 USD completed (transfer ${id}).` })
    // Not for traders.
    expect((await readInbox(f.h.db, "trader@example.com")).items.some((i) => i.href === `/transfers/${id}`)).toBe(false)
  })

  it("an orchestration placed through the console that fails at the service is told to its maker and the admins, with a link to the conversion", async () => {
    const orchestrationId = randomUUID()
    await f.h.db.insert(consoleIntents).values({
      staffEmail: f.me.email,
      staffRole: "trader",
      operation: "create_conversion",
      refId: randomUUID(),
      request: {},
      state: "SUCCEEDED",
      recordId: orchestrationId,
      recordStatus: "PROCESSING",
      upstreamApi: "orchestrations",
    })
    const event = { id: randomUUID(), type: "orchestration.failed", objectType: "orchestration", object: { id: orchestrationId, status: "FAILED" }, createdAt: new Date() }
    await f.h.db.transaction(async (tx) => consoleEventHandler().apply(tx, event, undefined, new Date()))
    for (const who of [f.me.email, checker.email]) {
      expect((await readInbox(f.h.db, who)).items.find((i) => i.href === `/conversions/${orchestrationId}`)).toMatchObject({ kind: "orchestration_failed", title: "Conversion failed at the service" })
    }
  })

  /** The team-notification entries of the audit trail, newest first. */
  async function trail(target?: string) {
    return f.h.db
      .select()
      .from(consoleIntents)
      .where(and(eq(consoleIntents.operation, "update_notifications"), target ? eq(consoleIntents.targetId, target) : undefined))
      .orderBy(sql`${consoleIntents.createdAt} desc`)
  }

  it("an order at or over the team's large-order size is told to the admins once, with a link to its intent; under it, or in another currency, nothing", async () => {
    expect(await readNotifySettings(f.h.db)).toMatchObject({ large_order: {} })
    await saveNotifySettings(f.h.db, checker, { large_order: { USD: "90.00", EUR: "50000.00" } })
    try {
      const asked = async (amount: string, refId = randomUUID()) => submitConversion(f.h, f.me, { profile_id: f.profileId, amount, source_asset: "USD", target_asset: "PYUSD", ref_id: refId })
      // Placed at once (under the approval threshold of 100.00) and at the size: told.
      const placedRef = randomUUID()
      const placed = await asked("90.00", placedRef)
      expect(placed.kind).toBe("placed")
      const [placedIntent] = await f.h.db.select().from(consoleIntents).where(eq(consoleIntents.refId, placedRef))
      // A request that waits for approval, over it: told too, saying it waits.
      const waiting = await ask("250.00")
      // Under it: nothing.
      const smallRef = randomUUID()
      await asked("89.99", smallRef)
      const [small] = await f.h.db.select().from(consoleIntents).where(eq(consoleIntents.refId, smallRef))
      // The same submission again (a retry under its ref_id) writes no second one.
      await asked("90.00", placedRef)

      const admin = (await readInbox(f.h.db, checker.email)).items.filter((i) => i.kind === "large_order")
      const forPlaced = admin.filter((i) => i.href === intentHref(placedIntent!.id))
      expect(forPlaced).toHaveLength(1)
      expect(forPlaced[0]).toMatchObject({ title: "Large order: conversion USD → PYUSD" })
      expect(forPlaced[0]!.detail).toBe(`${f.me.email} placed a conversion USD → PYUSD of 90.00 USD, at or over the team's large-order size of 90.00 USD.`)
      expect(admin.find((i) => i.href === intentHref(waiting))?.detail).toContain("of 250.00 USD, at or over the team's large-order size of 90.00 USD; it waits for approval.")
      expect(admin.some((i) => i.href === intentHref(small!.id))).toBe(false)
      // The admins only, never the maker or another trader.
      for (const who of [f.me.email, otherTrader.email]) expect((await readInbox(f.h.db, who)).items.some((i) => i.kind === "large_order")).toBe(false)
      // Titles are email subjects: no amount.
      for (const item of admin) expect(item.title).not.toMatch(/\d/)
    } finally {
      await saveNotifySettings(f.h.db, checker, { large_order: {} })
    }
    // Each change on the audit trail with before and after, and who.
    const [last, first] = await trail("large_order")
    expect(first).toMatchObject({ staffEmail: checker.email, state: "SUCCEEDED", request: { change: "large_order", before: { large_order: {} }, after: { large_order: { USD: "90.00", EUR: "50000.00" } } } })
    expect(last).toMatchObject({ request: { before: { large_order: { USD: "90.00", EUR: "50000.00" } }, after: { large_order: {} } } })
  })

  it("the large-order sizes are checked field by field, and a refused change is on the audit trail too", async () => {
    const bad = notifySettingsBodySchema.safeParse({ large_order: { USD: "-5", BTC: "1.00" } })
    expect(bad.success).toBe(false)
    const issues = bad.error!.issues.map((i) => [i.path.join("."), i.message])
    expect(issues).toContainEqual(["large_order.USD", "must be more than 0"])
    expect(issues.some(([path]) => path === "large_order" || path === "large_order.BTC")).toBe(true)
    await refusedSettingsChange(f.h.db, otherTrader, { target: "large_order", change: "large_order", body: { large_order: { USD: "-5" } } }, bad.error)
    const [refused] = await trail("large_order")
    expect(refused).toMatchObject({ staffEmail: otherTrader.email, state: "REFUSED", request: { change: "large_order", sent: { large_order: { USD: "-5" } } }, problem: { code: "validation_failed" } })
    expect(await readNotifySettings(f.h.db)).toMatchObject({ large_order: {} })
  })

  it("team channels added and removed are on the audit trail with who, before and after: the URL as scheme and host, never its token or the secret; refused attempts too", async () => {
    const url = `${hook.url.split("/hooks")[0]}/other/hook-token-canary-44aa`
    const channel = await addTeamChannel(f.h.db, checker, { name: "Spare hook", type: "webhook", url, secret: WEBHOOK_SECRET, kinds: ["large_order"] })
    await removeTeamChannel(f.h.db, checker, channel.id)
    const [removed, added] = await trail(channel.id)
    const hint = `${new URL(url).protocol}//${new URL(url).host}/…`
    expect(added).toMatchObject({ staffEmail: checker.email, state: "SUCCEEDED", request: { change: "channel_added", before: null, after: { name: "Spare hook", type: "webhook", url_hint: hint, has_secret: true, kinds: ["large_order"] } } })
    expect(removed).toMatchObject({ staffEmail: checker.email, state: "SUCCEEDED", request: { change: "channel_removed", before: { name: "Spare hook", url_hint: hint, has_secret: true }, after: null } })
    // A body that fails (a webhook with no secret) and a removal of a channel that is not there: refused, on the trail.
    const body = { name: "No secret", type: "webhook", url, kinds: ["large_order"] }
    const parsed = channelBodySchema.safeParse(body)
    await refusedSettingsChange(f.h.db, checker, { target: "new_channel", change: "channel_add", body }, parsed.error)
    const missing = randomUUID()
    const error = await removeTeamChannel(f.h.db, checker, missing).catch((e: unknown) => e)
    await refusedSettingsChange(f.h.db, checker, { target: missing, change: "channel_remove", body: null }, error)
    const [refusedAdd] = await trail("new_channel")
    expect(refusedAdd).toMatchObject({ state: "REFUSED", request: { change: "channel_add", sent: { name: "No secret", url_hint: hint, has_secret: false } }, problem: { code: "validation_failed", meta: { fields: { secret: "a webhook channel needs a signing secret" } } } })
    expect((await trail(missing))[0]).toMatchObject({ state: "REFUSED", problem: { status: 404 } })
    const kept = JSON.stringify(await trail())
    expect(kept).not.toContain("hook-token-canary-44aa")
    expect(kept).not.toContain(WEBHOOK_SECRET)
    expect(kept).not.toContain(CHAT_TOKEN)
  })

  it("an order whose outcome the reconciler could not learn is told to its maker and the admins once; a later run that learns it resolves it", async () => {
    const refId = randomUUID()
    const [intent] = await f.h.db
      .insert(consoleIntents)
      .values({
        staffEmail: f.me.email,
        staffRole: "trader",
        operation: "create_conversion",
        profileId: f.profileId,
        refId,
        request: { profile_id: f.profileId, amount: "5.00", source_asset: "USD", target_asset: "PYUSD", ref_id: refId },
        state: "UNKNOWN",
        sizeAmount: "5.00",
        sizeCurrency: "USD",
        upstreamApi: "stablecoin-conversions",
        createdAt: new Date(Date.now() - 120_000),
        updatedAt: new Date(Date.now() - 120_000),
      })
      .returning()
    // The service cannot be asked: the look-up fails, the intent stays UNKNOWN, twice.
    const down = {
      ...f.h,
      upstream: { ...f.h.upstream, conversionsVia: () => ({ listConversions: () => Promise.reject(new Error("connect ECONNREFUSED")) }) } as unknown as UpstreamClient,
    }
    for (let run = 0; run < 2; run++) expect((await reconcileIntents(down, { olderThanMs: 0 })).unresolved).toBeGreaterThanOrEqual(1)
    const [notification, ...more] = await f.h.db.select().from(consoleNotifications).where(and(eq(consoleNotifications.kind, "outcome_unknown"), eq(consoleNotifications.subject, intent!.id)))
    expect(more).toHaveLength(0)
    expect(notification).toMatchObject({ title: "Outcome unknown: conversion USD → PYUSD", href: intentHref(intent!.id), resolvedAt: null })
    expect(notification!.detail).toContain(`of 5.00 USD (ref_id ${refId}) sent by ${f.me.email}`)
    for (const who of [f.me.email, checker.email]) expect((await readInbox(f.h.db, who)).items.find((i) => i.id === notification!.id)).toMatchObject({ kind: "outcome_unknown", read: false })
    expect((await readInbox(f.h.db, otherTrader.email)).items.some((i) => i.id === notification!.id)).toBe(false)
    // The service answers again: the create is found (or sent again under its ref_id) and the item resolves for everyone.
    await reconcileIntents(f.h, { olderThanMs: 0 })
    expect((await f.h.db.select().from(consoleIntents).where(eq(consoleIntents.id, intent!.id)))[0]?.state).toBe("SUCCEEDED")
    expect((await readInbox(f.h.db, checker.email)).items.find((i) => i.id === notification!.id)?.resolved).toMatchObject({ by: "the reconciler", what: "found placed" })
  })

  it("a day whose statement does not tie out is told to the admins when its closing cutoff's snapshot is taken, with the asset, the size and the window; once", async () => {
    const profiles = (await f.h.upstream.listProfiles()).items
    const moved = profiles[profiles.length - 1]!.id
    // Two cutoffs far from today, so no record of the service falls in the day between them:
    // only a change no record explains can move a balance there.
    let now = Date.parse("2030-01-01T00:00:05Z")
    const job = createSnapshotJob({ db: f.h.db, id: `snapshots-${randomUUID().slice(0, 8)}`, upstream: f.h.upstream, solo: driver === "pglite", now: () => now, tieOut: (snapshot, at) => tieOutCutoff(f.h, snapshot, at) })
    expect((await job.tick())?.cutoff?.toISOString()).toBe("2030-01-01T00:00:00.000Z")
    await f.h.upstream.sandboxSilentMovement({ profile_id: moved, asset: "USD", amount: "3.50" })
    now = Date.parse("2030-01-02T00:00:05Z")
    const closing = await job.tick()
    expect(closing?.cutoff?.toISOString()).toBe("2030-01-02T00:00:00.000Z")
    expect(await job.tick()).toBeNull()
    await job.stop()
    const told = await f.h.db.select().from(consoleNotifications).where(eq(consoleNotifications.kind, "statement_difference"))
    // The profile that moved, only: the others tie out.
    expect(told.map((n) => n.subject)).toEqual([`${moved}:2030-01-01`])
    expect(told[0]).toMatchObject({ title: "A statement does not tie out", href: statementHref(moved, "2030-01-01") })
    expect(told[0]!.detail).toContain(`The statement of profile ${moved} for 2030-01-01 (00:00 to 24:00 UTC) does not tie out`)
    expect(told[0]!.detail).toContain("differs on USD by 3.50 USD")
    expect(told[0]!.detail).toMatch(/A change no record explains: 3\.50 USD between 2030-01-01 00:00 and 2030-01-02 00:00 UTC\./)
    expect((await readInbox(f.h.db, checker.email)).items.some((i) => i.id === told[0]!.id)).toBe(true)
    expect((await readInbox(f.h.db, "trader@example.com")).items.some((i) => i.id === told[0]!.id)).toBe(false)
    // Checked once: asked again, nothing more.
    expect(await tieOutCutoff(f.h, closing!, new Date(now))).toBeNull()
  })

  it("the event reader lagging more than 5 minutes is told to the admins once per episode, and resolves itself when it catches up", async () => {
    const lastRead = (ago: string) => f.h.db.execute(sql`update console_event_reader set last_read_at = clock_timestamp() - ${ago}::interval where id = 1`)
    const lagging = () => f.h.db.select().from(consoleNotifications).where(eq(consoleNotifications.kind, "events_lagging")).orderBy(consoleNotifications.createdAt)
    await lastRead("4 minutes")
    expect(await checkEventsLag(f.h.db)).toBe("caught_up")
    expect(await lagging()).toHaveLength(0)
    await lastRead("6 minutes")
    expect(await checkEventsLag(f.h.db)).toBe("lagging")
    expect(await checkEventsLag(f.h.db)).toBe("lagging")
    const [episode, ...more] = await lagging()
    expect(more).toHaveLength(0)
    expect(episode).toMatchObject({ title: "The event reader is behind", href: "/events", resolvedAt: null })
    expect((await readInbox(f.h.db, checker.email)).items.find((i) => i.id === episode!.id)).toMatchObject({ kind: "events_lagging", resolved: null })
    // A read comes through: resolved for everyone it went to.
    await lastRead("1 second")
    expect(await checkEventsLag(f.h.db)).toBe("caught_up")
    expect((await readInbox(f.h.db, checker.email)).items.find((i) => i.id === episode!.id)?.resolved).toMatchObject({ by: "the event reader", what: "caught up" })
    // Behind again: a new episode, a new notification.
    await lastRead("10 minutes")
    expect(await checkEventsLag(f.h.db)).toBe("lagging")
    expect(await lagging()).toHaveLength(2)
  })

  it("no delivered payload and no listed channel carries a secret, token or password", async () => {
    expect(await drain(await worker())).toBe(0)
    const secrets = [SMTP_PASSWORD, CHAT_TOKEN, "chat-token-canary-5e1a9c", "hook-token-canary-44aa", WEBHOOK_SECRET, WEBHOOK_SECRET.slice(6), ...Object.values(canaries)]
    const payloads = [
      ...smtp.mails.map((m) => m.raw),
      ...chat.received.map((r) => r.body + JSON.stringify(r.headers)),
      ...hook.received.map((r) => r.body + JSON.stringify(r.headers)),
      JSON.stringify(await listChannels(f.h.db)),
      JSON.stringify(await listDeliveries(f.h.db)),
      JSON.stringify(await trail()),
    ]
    expect(smtp.mails.length).toBeGreaterThan(0)
    expect(hook.received.length).toBeGreaterThan(0)
    // The new kinds went out too, by email, to chat and to the signed webhook: what is checked here.
    const sent = await f.h.db
      .select({ kind: consoleNotifications.kind, channel: consoleNotificationDeliveries.channel })
      .from(consoleNotificationDeliveries)
      .innerJoin(consoleNotifications, eq(consoleNotifications.id, consoleNotificationDeliveries.notificationId))
      .where(eq(consoleNotificationDeliveries.state, "sent"))
    for (const kind of NEW_KINDS) {
      expect(hook.received.some((r) => r.body.includes(`"notification.${kind}"`)), kind).toBe(true)
      for (const channel of ["email", "chat", "webhook"]) expect(sent.some((d) => d.kind === kind && d.channel === channel), `${kind} by ${channel}`).toBe(true)
    }
    for (const payload of payloads) for (const secret of secrets) expect(payload.includes(secret), `a secret in ${payload.slice(0, 80)}`).toBe(false)
    // The stored channel keeps them (the worker needs them), the list never shows them.
    const [stored] = await f.h.db.select().from(consoleNotificationChannels).where(eq(consoleNotificationChannels.type, "webhook"))
    expect(stored?.secret).toBe(WEBHOOK_SECRET)
  })
})
