import { randomUUID } from "node:crypto"
import { eq } from "drizzle-orm"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Staff } from "@/lib/auth/roles"
import { withdrawRequest } from "@/lib/console/approvals/decisions"
import { listApprovalsPage } from "@/lib/console/approvals/reads"
import { recordFinalStatus } from "@/lib/console/intents"
import { pollNotifications } from "@/lib/console/notifications"
import { readInbox } from "@/lib/console/notify/inbox"
import type { ConsoleDeps } from "@/lib/console/operations"
import type { QuoteSnapshot } from "@/lib/console/quote-cache"
import { openStream } from "@/lib/console/stream"
import { submitConversion } from "@/lib/console/submission"
import { type StreamHub, createStreamHub } from "@/lib/console/stream-hub"
import { type Database, openDatabase } from "@/lib/db/client"
import { consoleIntents, consoleNotificationRecipients, consoleNotifications } from "@/lib/db/schema"
import type { ApprovalPage } from "@/lib/schemas/approvals"
import type { Overview } from "@/lib/schemas/overview"
import { STREAM_EVENT_SCHEMAS, type StreamEventName, type StreamTopic } from "@/lib/schemas/stream"
import { ApprovalsFixture, checker, support } from "@/test/approvals"
import { createTestDatabase, testDrivers } from "@/test/db"
import { insertIntentRows } from "@/test/intents"

interface Received {
  name: string
  id: string | null
  data: unknown
}

/** Reads a stream's SSE events as a browser's EventSource would (comments kept apart). */
function reader(stream: ReadableStream<Uint8Array>) {
  const events: Received[] = []
  const comments: string[] = []
  let done = false
  const decoder = new TextDecoder()
  let buffer = ""
  const r = stream.getReader()
  const pump = (async () => {
    for (;;) {
      const { value, done: over } = await r.read()
      if (over) break
      buffer += decoder.decode(value, { stream: true })
      let cut: number
      while ((cut = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, cut)
        buffer = buffer.slice(cut + 2)
        let name = "message"
        let id: string | null = null
        let data: string | null = null
        for (const line of block.split("\n")) {
          if (line.startsWith(":")) comments.push(line)
          else if (line.startsWith("event: ")) name = line.slice(7)
          else if (line.startsWith("id: ")) id = line.slice(4)
          else if (line.startsWith("data: ")) data = line.slice(6)
        }
        if (data !== null) {
          const parsed: unknown = JSON.parse(data)
          // What the browser does: each event checked against its schema.
          STREAM_EVENT_SCHEMAS[name as StreamEventName].parse(parsed)
          events.push({ name, id, data: parsed })
        }
      }
    }
    done = true
  })()
  return {
    events,
    comments,
    isDone: () => done,
    finished: pump,
    of: (name: string) => events.filter((e) => e.name === name),
  }
}

async function until(check: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out waiting")
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

function fakeQuotes() {
  let calls = 0
  let failing = false
  return {
    calls: () => calls,
    fail: (on: boolean) => (failing = on),
    source: {
      get: (): Promise<QuoteSnapshot> => {
        calls++
        if (failing) return Promise.reject(new Error("the service stopped answering for quotes"))
        const now = Date.now()
        const at = now - (now % 100)
        const quote = (market: string) => ({
          id: `${market}-${at}`,
          market,
          side: "BUY" as const,
          price: "100.00",
          base_asset: market.slice(0, 3),
          quote_asset: "USD",
          created_at: new Date(at).toISOString(),
          expires_at: new Date(at + 30_000).toISOString(),
        })
        return Promise.resolve({ quotes: [quote("BTCUSD"), quote("ETHUSD")], fetchedAt: at, stale: false, markets: ["BTCUSD", "ETHUSD"] })
      },
    },
  }
}

async function placement(db: Database["db"], email: string): Promise<string> {
  const [row] = await insertIntentRows(db, {
    staffEmail: email,
    staffRole: "trader",
    operation: "create_execution",
    refId: randomUUID(),
    request: {},
    profileId: "p1",
  })
  return row!.id
}

async function settle(db: Database["db"], intentId: string, recordId: string): Promise<void> {
  await db.update(consoleIntents).set({ state: "SUCCEEDED", recordId, recordStatus: "PENDING" }).where(eq(consoleIntents.id, intentId))
  await recordFinalStatus(db, intentId, "SETTLED", new Date())
}

describe.each(testDrivers())("the stream (%s)", (driver) => {
  let database: Database
  let hub: StreamHub
  const quotes = fakeQuotes()
  const opened: AbortController[] = []

  beforeAll(async () => {
    database = await createTestDatabase(driver)
    hub = createStreamHub({ db: database.db, quotes: quotes.source, listen: (...args) => database.listen(...args), quotePaceMs: 50, tailMs: 60_000 })
  })
  afterAll(async () => {
    await hub.stop()
    await database.close()
  })

  function open(options: { email?: string; lastEventId?: number | null; signal?: AbortSignal; valid?: () => Promise<boolean>; markets?: string[]; records?: string[]; recheckMs?: number }) {
    const closed: string[] = []
    const own = new AbortController()
    opened.push(own)
    const stream = openStream({
      hub,
      email: options.email ?? "trader@example.com",
      markets: options.markets ?? [],
      records: options.records ?? [],
      lastEventId: options.lastEventId ?? null,
      signal: options.signal ?? own.signal,
      sessionValid: options.valid ?? (() => Promise.resolve(true)),
      heartbeatMs: 40,
      recheckMs: options.recheckMs ?? 50,
      onClose: (reason) => closed.push(reason),
    })
    return { ...reader(stream), closed }
  }

  it("pushes a person's placement status changes by NOTIFY, in order, with ids, and nobody else's", async () => {
    const mine = open({})
    const theirs = open({ email: "other@example.com" })
    await until(() => mine.of("ready").length === 1 && theirs.of("ready").length === 1)
    const id = await placement(database.db, "trader@example.com")
    await settle(database.db, id, "exec-1")
    // The hub's catch-up read is a minute away: only the notification brings these.
    await until(() => mine.of("record").filter((e) => (e.data as { final_status: string | null }).final_status === "SETTLED").length === 1)
    const records = mine.of("record")
    expect(records.map((e) => [(e.data as { state: string }).state, (e.data as { final_status: string | null }).final_status])).toEqual([
      ["SUCCEEDED", null],
      ["SUCCEEDED", "SETTLED"],
    ])
    const ids = records.map((e) => Number(e.id))
    expect(ids).toEqual([...ids].sort((a, b) => a - b))
    expect(new Set(ids).size).toBe(ids.length)
    expect(theirs.of("record")).toEqual([])
  })

  it("pushes a followed record's changes to a page that follows it, whoever placed it", async () => {
    const follower = open({ email: "viewer@example.com", records: ["exec-followed"] })
    await until(() => follower.of("ready").length === 1)
    const id = await placement(database.db, "trader@example.com")
    await settle(database.db, id, "exec-followed")
    await until(() => follower.of("record").some((e) => (e.data as { final_status: string | null }).final_status === "SETTLED"))
    // Before it had its record id, the placement was not the followed record.
    expect(follower.of("record").every((e) => (e.data as { record_id: string | null }).record_id === "exec-followed")).toBe(true)
  })

  it("resumes from Last-Event-ID with exactly the events it missed: no gap, no repeat", async () => {
    const controller = new AbortController()
    const first = open({ email: "resume@example.com", signal: controller.signal })
    await until(() => first.of("ready").length === 1)
    const a = await placement(database.db, "resume@example.com")
    await database.db.update(consoleIntents).set({ recordStatus: "PENDING" }).where(eq(consoleIntents.id, a))
    await until(() => first.of("record").length === 1)
    const lastSeen = Number(first.of("record")[0]!.id)
    controller.abort()
    // Missed while disconnected: three changes of this person's, some of someone else's.
    await settle(database.db, a, "exec-r1")
    const other = await placement(database.db, "someone@example.com")
    await settle(database.db, other, "exec-r2")
    await hub.poke()
    const second = open({ email: "resume@example.com", lastEventId: lastSeen })
    await until(() => second.of("record").length >= 2)
    const b = await placement(database.db, "resume@example.com")
    await database.db.update(consoleIntents).set({ state: "FAILED" }).where(eq(consoleIntents.id, b))
    await until(() => second.of("record").length >= 3)
    await sleep(200)
    const got = second.of("record").map((e) => ({ id: Number(e.id), intent: (e.data as { intent_id: string }).intent_id, state: (e.data as { state: string }).state, final: (e.data as { final_status: string | null }).final_status }))
    expect(got.map((e) => [e.intent, e.state, e.final])).toEqual([
      [a, "SUCCEEDED", null],
      [a, "SUCCEEDED", "SETTLED"],
      [b, "FAILED", null],
    ])
    expect(got.every((e) => e.id > lastSeen)).toBe(true)
    expect(second.of("ready")[0]!.data).toMatchObject({ last_event_id: String(lastSeen) })
  })

  it("pushes quotes of the stream's markets only, one quotes read for every stream at once", async () => {
    const btc = open({ markets: ["BTCUSD"] })
    const eth = open({ markets: ["ETHUSD"] })
    await until(() => btc.of("quotes").length >= 3 && eth.of("quotes").length >= 3)
    expect(btc.of("quotes").every((e) => (e.data as { items: { market: string }[] }).items.every((q) => q.market === "BTCUSD"))).toBe(true)
    expect(eth.of("quotes").every((e) => (e.data as { items: { market: string }[] }).items.every((q) => q.market === "ETHUSD"))).toBe(true)
    // A new snapshot every 100 ms, read every 50 ms: two streams do not double the reads.
    const before = quotes.calls()
    await sleep(500)
    expect(quotes.calls() - before).toBeLessThanOrEqual(12)
  })

  it("quotes the service stopped answering for are pushed once more, marked stale", async () => {
    const s = open({ markets: ["BTCUSD"] })
    await until(() => s.of("quotes").length >= 2)
    quotes.fail(true)
    try {
      await until(() => s.of("quotes").some((e) => (e.data as { stale: boolean }).stale))
      await sleep(300)
      // Once: the same stale quotes are not sent again while the service stays down.
      expect(s.of("quotes").filter((e) => (e.data as { stale: boolean }).stale)).toHaveLength(1)
    } finally {
      quotes.fail(false)
    }
    await until(() => !(s.of("quotes").at(-1)!.data as { stale: boolean }).stale)
  })

  it("a stream whose session is revoked gets `end` and closes at the next check", async () => {
    let valid = true
    const s = open({ valid: () => Promise.resolve(valid), recheckMs: 50 })
    await until(() => s.of("ready").length === 1)
    await sleep(150)
    expect(s.isDone()).toBe(false)
    valid = false
    await until(() => s.isDone(), 1000)
    expect(s.of("end").map((e) => e.data)).toEqual([{ reason: "session_ended" }])
    expect(s.closed).toEqual(["session_ended"])
  })

  it("a stream the browser left releases its timers and its place in the hub", async () => {
    for (const other of opened) other.abort()
    expect(hub.stats()).toMatchObject({ subscribers: 0, timers: 0 })
    const controller = new AbortController()
    let checks = 0
    const s = open({
      signal: controller.signal,
      markets: ["BTCUSD"],
      valid: () => {
        checks++
        return Promise.resolve(true)
      },
    })
    await until(() => s.of("ready").length === 1 && s.comments.length >= 2 && checks >= 2)
    const during = hub.stats()
    expect(during.subscribers).toBeGreaterThanOrEqual(1)
    expect(during.timers).toBeGreaterThan(0)
    controller.abort()
    expect(s.closed).toEqual(["aborted"])
    const checksAtAbort = checks
    const commentsAtAbort = s.comments.length
    await sleep(300)
    // No session check, no heartbeat after the abort: its timers are gone.
    expect(checks).toBe(checksAtAbort)
    expect(s.comments.length).toBe(commentsAtAbort)
    // The last stream gone, the hub's own work stops too.
    await until(() => hub.stats().subscribers === 0, 2000)
    expect(hub.stats().timers).toBe(0)
  })
})

/** The overview as a fake: counts its reads, names the view it was built for. */
function fakeOverview() {
  let reads = 0
  let changed = 0
  return {
    reads: () => reads,
    changed: () => changed,
    build: (staff: { role: string }): Promise<Overview> => {
      reads++
      return Promise.resolve({
        total_usd: `${reads}.00`,
        total_history: null,
        profiles: [],
        allocation: [],
        changes: [],
        activity: { since: new Date(0).toISOString(), executions: [], conversions: [] },
        feed: [],
        unresolved_intents: staff.role === "admin" ? 0 : null,
        priced_at: new Date().toISOString(),
        stale: false,
      })
    },
    onChanged: () => void changed++,
  }
}

async function notifyInbox(db: Database["db"], email: string, title: string): Promise<void> {
  const [row] = await db
    .insert(consoleNotifications)
    .values({ kind: "approval_waiting", subject: randomUUID(), title, detail: "d", href: "/approvals", createdAt: new Date() })
    .returning({ id: consoleNotifications.id })
  await db.insert(consoleNotificationRecipients).values({ notificationId: row!.id, email })
}

describe.each(testDrivers())("the stream's topics (%s)", (driver) => {
  let database: Database
  let hub: StreamHub
  const overview = fakeOverview()
  /** What the service says of any placement in flight. */
  let serviceSays = "PENDING"
  let serviceCalls = 0
  let notificationReads = 0

  beforeAll(async () => {
    database = await createTestDatabase(driver)
    const upstream = {
      getQuoteExecution: () => {
        serviceCalls++
        return Promise.resolve({ status: serviceSays })
      },
    }
    const deps = { db: database.db, upstream } as unknown as ConsoleDeps
    hub = createStreamHub({
      db: database.db,
      quotes: fakeQuotes().source,
      listen: (...args) => database.listen(...args),
      tailMs: 60_000,
      // Only NOTIFY (or a join) reads a topic again in these tests, but for the placements in flight.
      topicPaceMs: { inbox: 60_000, approvals: 60_000, overview: 60_000, notifications: 100 },
      topics: {
        inbox: (email) => readInbox(database.db, email),
        approvals: () => Promise.resolve({ items: [], pending_count: 0, pending_for_you: 0 }),
        approvalList: () => Promise.resolve({ items: [], pending_count: 0, pending_for_you: 0 }),
        overview: (staff) => overview.build(staff),
        overviewChanged: overview.onChanged,
        notifications: (staff, since) => {
          notificationReads++
          return pollNotifications(deps, staff, since)
        },
      },
    })
  })
  afterAll(async () => {
    await hub.stop()
    await database.close()
  })

  function open(email: string, role: "viewer" | "trader" | "admin", topics: StreamTopic[]) {
    const own = new AbortController()
    const s = reader(
      openStream({ hub, email, role, topics, markets: [], records: [], lastEventId: null, signal: own.signal, sessionValid: () => Promise.resolve(true), heartbeatMs: 60_000 }),
    )
    return { ...s, close: () => own.abort() }
  }

  it("carries only the topics the role may read, and says which in `ready`", async () => {
    const viewer = open("viewer@example.com", "viewer", ["inbox", "approvals", "overview", "notifications"])
    const trader = open("trader@example.com", "trader", ["approvals", "notifications"])
    await until(() => viewer.of("ready").length === 1 && trader.of("ready").length === 1)
    expect((viewer.of("ready")[0]!.data as { topics: string[] }).topics).toEqual(["inbox", "overview"])
    expect((trader.of("ready")[0]!.data as { topics: string[] }).topics).toEqual(["approvals", "notifications"])
    await until(() => viewer.of("inbox").length === 1 && trader.of("approvals").length === 1)
    expect(viewer.of("approvals")).toHaveLength(0)
    viewer.close()
    trader.close()
  })

  it("pushes a person's inbox when a notification for them is written, and nobody else's", async () => {
    const mine = open("inbox@example.com", "viewer", ["inbox"])
    const theirs = open("other-inbox@example.com", "viewer", ["inbox"])
    await until(() => mine.of("inbox").length === 1 && theirs.of("inbox").length === 1)
    expect(mine.of("inbox")[0]!.data).toMatchObject({ items: [], unread: 0 })
    await notifyInbox(database.db, "inbox@example.com", "Waiting for you")
    // The topics' own reads are a minute away: only the notification brings this.
    await until(() => mine.of("inbox").length === 2)
    expect(mine.of("inbox")[1]!.data).toMatchObject({ unread: 1, items: [{ title: "Waiting for you", read: false }] })
    await hub.settleTopics()
    expect(theirs.of("inbox")).toHaveLength(1)
    mine.close()
    theirs.close()
  })

  it("reads the overview once per view for every stream, and again when a placement changes", async () => {
    const before = overview.reads()
    const streams = [1, 2, 3].map(() => open("viewer@example.com", "viewer", ["overview"]))
    const admin = open("admin@example.com", "admin", ["overview"])
    await until(() => streams.every((s) => s.of("overview").length >= 1) && admin.of("overview").length >= 1)
    await hub.settleTopics()
    // One read for the three viewers' streams (they join together or get the one already read), one for the admin's view.
    expect(overview.reads() - before).toBeLessThanOrEqual(3)
    expect((admin.of("overview")[0]!.data as Overview).unresolved_intents).toBe(0)
    expect((streams[0]!.of("overview")[0]!.data as Overview).unresolved_intents).toBeNull()
    const changedBefore = overview.changed()
    const seen = streams[0]!.of("overview").length
    // An admission's insert is followed by its state's update: that update is what notifies.
    const id = await placement(database.db, "someone@example.com")
    await database.db.update(consoleIntents).set({ state: "SUCCEEDED", recordId: "exec-someone", recordStatus: "PENDING" }).where(eq(consoleIntents.id, id))
    await until(() => streams[0]!.of("overview").length > seen)
    expect(overview.changed()).toBeGreaterThan(changedBefore)
    for (const s of [...streams, admin]) s.close()
  })

  it("asks the service about the person's placements in flight and pushes the final status once", async () => {
    serviceSays = "PENDING"
    const s = open("flight@example.com", "trader", ["notifications"])
    await until(() => s.of("ready").length === 1)
    const id = await placement(database.db, "flight@example.com")
    await database.db.update(consoleIntents).set({ state: "SUCCEEDED", recordId: "exec-flight", recordStatus: "PENDING" }).where(eq(consoleIntents.id, id))
    const calls = serviceCalls
    await until(() => serviceCalls > calls)
    expect(s.of("notifications")).toHaveLength(0)
    serviceSays = "SETTLED"
    await until(() => s.of("notifications").length === 1)
    expect(s.of("notifications")[0]!.data).toMatchObject({ events: [{ kind: "execution", state: "SETTLED", record_id: "exec-flight" }] })
    // Read again and again at its pace (the cursor trails by a minute): never pushed twice.
    const [row] = await database.db.select({ at: consoleIntents.recordFinalAt }).from(consoleIntents).where(eq(consoleIntents.id, id))
    expect(row?.at).not.toBeNull()
    const after = serviceCalls
    const reads = notificationReads
    await until(() => notificationReads >= reads + 3)
    await hub.settleTopics()
    expect(s.of("notifications")).toHaveLength(1)
    // Settled: the service is not asked about it any more.
    expect(serviceCalls).toBe(after)
    s.close()
  })
})

// The /approvals page's list (topic `approval_list`): a request made or ended by anyone
// reaches the streams that carry it through migration 0026's trigger, as
// GET /api/approvals?limit=100 answers each person, and nobody who may not read it.
describe.each(testDrivers())("the approvals list topic (%s)", (driver) => {
  const f = new ApprovalsFixture(driver)
  let hub: StreamHub
  beforeAll(() => {
    const never = () => Promise.reject(new Error("not in this test"))
    hub = createStreamHub({
      db: f.h.db,
      quotes: fakeQuotes().source,
      listen: (...args) => f.h.database.listen(...args),
      tailMs: 60_000,
      // A minute: only NOTIFY (or a join) reads the list in these tests.
      topicPaceMs: { approval_list: 60_000, approvals: 60_000 },
      topics: { inbox: never, approvals: never, approvalList: (staff) => listApprovalsPage(f.h.db, staff), overview: never, notifications: never },
    })
  })
  afterAll(async () => {
    await hub.stop()
  })

  function open(staff: Staff) {
    const own = new AbortController()
    const s = reader(
      openStream({
        hub,
        email: staff.email,
        role: staff.role,
        topics: ["approval_list"],
        markets: [],
        records: [],
        lastEventId: null,
        signal: own.signal,
        sessionValid: () => Promise.resolve(true),
        heartbeatMs: 60_000,
      }),
    )
    return { ...s, close: () => own.abort() }
  }
  const pageOf = (e: Received | undefined) => e?.data as ApprovalPage

  it("a request made, then withdrawn, reaches each trader's stream once per change, as GET /api/approvals answers that person; support gets nothing", async () => {
    const maker = f.me
    const mine = open(maker)
    const theirs = open(checker)
    const nosy = open(support)
    await until(() => mine.of("approval_list").length === 1 && theirs.of("approval_list").length === 1 && nosy.of("ready").length === 1)
    expect((nosy.of("ready")[0]!.data as { topics: string[] }).topics).toEqual([])

    const asked = await submitConversion(f.h, maker, { profile_id: f.profileId, amount: "150.00", source_asset: "USD", target_asset: "PYUSD", ref_id: randomUUID() })
    if (asked.kind !== "request") throw new Error("expected a request")
    const id = asked.request.id
    // The list's own reads are a minute away: only the trigger's NOTIFY brings it.
    await until(() => theirs.of("approval_list").length === 2 && mine.of("approval_list").length === 2)
    await hub.settleTopics()
    expect(theirs.of("approval_list")).toHaveLength(2)
    expect(mine.of("approval_list")).toHaveLength(2)
    // Each as the route answers them: the checker may decide it, its maker may not.
    expect(pageOf(theirs.of("approval_list")[1])).toEqual(await listApprovalsPage(f.h.db, checker))
    expect(pageOf(mine.of("approval_list")[1])).toEqual(await listApprovalsPage(f.h.db, maker))
    expect(pageOf(theirs.of("approval_list")[1]).items.find((r) => r.id === id)).toMatchObject({ state: "PENDING", maker: { email: maker.email } })
    expect(pageOf(theirs.of("approval_list")[1]).pending_for_you).toBe(pageOf(theirs.of("approval_list")[0]).pending_for_you + 1)
    expect(pageOf(mine.of("approval_list")[1]).pending_for_you).toBe(pageOf(mine.of("approval_list")[0]).pending_for_you)

    await withdrawRequest(f.h.db, maker, id, {})
    await until(() => theirs.of("approval_list").length === 3)
    await hub.settleTopics()
    expect(theirs.of("approval_list")).toHaveLength(3)
    expect(pageOf(theirs.of("approval_list")[2]).items.find((r) => r.id === id)).toMatchObject({ state: "WITHDRAWN" })

    expect(nosy.of("approval_list")).toHaveLength(0)
    for (const s of [mine, theirs, nosy]) s.close()
  })
})

describe.runIf(testDrivers().includes("postgres"))("across instances (postgres)", () => {
  it("a change committed by one instance reaches a stream on another within a second", async () => {
    const { createEmptyPostgresDatabase } = await import("@/test/db")
    const empty = await createEmptyPostgresDatabase()
    const a = await openDatabase({ url: empty.url })
    await a.migrate()
    const b = await openDatabase({ url: empty.url })
    const hubB = createStreamHub({ db: b.db, quotes: fakeQuotes().source, listen: (...args) => b.listen(...args), tailMs: 60_000 })
    try {
      const s = reader(
        openStream({ hub: hubB, email: "x@example.com", markets: [], records: [], lastEventId: null, signal: new AbortController().signal, sessionValid: () => Promise.resolve(true) }),
      )
      await until(() => s.of("ready").length === 1)
      const started = Date.now()
      await settle(a.db, await placement(a.db, "x@example.com"), "exec-x")
      await until(() => s.of("record").length === 2, 1000)
      expect(Date.now() - started).toBeLessThan(1000)
    } finally {
      await hubB.stop()
      await a.close()
      await b.close()
      await empty.drop()
    }
  })

  it("an inbox change committed by one instance reaches that person's stream on another", async () => {
    const { createEmptyPostgresDatabase } = await import("@/test/db")
    const empty = await createEmptyPostgresDatabase()
    const a = await openDatabase({ url: empty.url })
    await a.migrate()
    const b = await openDatabase({ url: empty.url })
    const never = () => Promise.reject(new Error("not in this test"))
    const hubB = createStreamHub({
      db: b.db,
      quotes: fakeQuotes().source,
      listen: (...args) => b.listen(...args),
      tailMs: 60_000,
      topicPaceMs: { inbox: 60_000 },
      topics: { inbox: (email) => readInbox(b.db, email), approvals: never, approvalList: never, overview: never, notifications: never },
    })
    try {
      const s = reader(
        openStream({ hub: hubB, email: "x@example.com", topics: ["inbox"], markets: [], records: [], lastEventId: null, signal: new AbortController().signal, sessionValid: () => Promise.resolve(true) }),
      )
      await until(() => s.of("inbox").length === 1)
      await notifyInbox(a.db, "x@example.com", "From instance A")
      await until(() => s.of("inbox").length === 2)
      expect(s.of("inbox")[1]!.data).toMatchObject({ unread: 1, items: [{ title: "From instance A" }] })
    } finally {
      await hubB.stop()
      await a.close()
      await b.close()
      await empty.drop()
    }
  })
})
