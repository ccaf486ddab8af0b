import { randomUUID } from "node:crypto"
import { asc, count, eq, sql } from "drizzle-orm"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import type { Staff } from "@/lib/auth/roles"
import { consoleEventHandler, latestCredits } from "@/lib/console/event-effects"
import { type EventHandler, type EventReader, createEventReader } from "@/lib/console/event-reader"
import { pollNotifications } from "@/lib/console/notifications"
import { consoleEventReader, consoleEvents, consoleIntents, sandboxEvents } from "@/lib/db/schema"
import type { ServiceEvent, UpstreamClient } from "@/lib/upstream"
import { type ConsoleHarness, createConsoleHarness, placeConversion } from "@/test/console"
import { testDrivers } from "@/test/db"

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** Waits for `condition` (polled), up to `ms`; the test fails with `what` otherwise. */
async function until(condition: () => Promise<boolean> | boolean, what: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(25)
  }
}

describe.each(testDrivers())("the event reader against the sandbox on %s", (driver) => {
  let h: ConsoleHarness
  let profileId: string
  let clientId: string
  const readers: EventReader[] = []

  beforeAll(async () => {
    h = await createConsoleHarness({ driver, conversionsApi: "orchestrations" })
    profileId = (await h.upstream.listProfiles()).items[0]!.id
    await h.upstream.sandboxDeposit(profileId, { asset: "USD", amount: "100000.00" })
    const [row] = await h.db.select({ clientId: sandboxEvents.clientId }).from(sandboxEvents).limit(1)
    clientId = row!.clientId
  })
  afterAll(async () => {
    for (const reader of readers) await reader.stop()
    await h?.close()
  })
  beforeEach(async () => {
    for (const reader of readers.splice(0)) await reader.stop()
    // Each test starts with a reader that has read nothing (the service keeps its events).
    await h.db.delete(consoleEvents)
    await h.db.update(consoleEventReader).set({ holder: null, leaseUntil: 0, cursorAt: null, cursorId: null, wakeAt: null })
  })

  /** The service's events as a second client would list them: every one, ascending. */
  async function serviceEvents(): Promise<ServiceEvent[]> {
    const out: ServiceEvent[] = []
    let cursor: string | undefined
    do {
      const page = await h.upstream.listEvents({ limit: 1000, page_cursor: cursor })
      out.push(...page.events)
      cursor = page.next_page_cursor
    } while (cursor)
    return out
  }

  /** Events at the service with one created_at (ties), as a burst of transfers in one millisecond makes. */
  async function tiedEvents(n: number, at: Date): Promise<void> {
    await h.db.insert(sandboxEvents).values(
      Array.from({ length: n }, () => ({
        id: randomUUID(),
        clientId,
        type: "transfer.crypto_withdrawal.pending",
        objectType: "transfer_status_change",
        object: { id: randomUUID(), profile_id: profileId, status: "PENDING" },
        createdAt: at,
      })),
    )
  }

  /** A handler counting how often each event is applied; `failing` ids throw. */
  function counting(failing: Set<string> = new Set()) {
    const applied = new Map<string, number>()
    const handler: EventHandler = {
      apply(_tx, event) {
        if (failing.has(event.id)) return Promise.reject(new Error(`cannot apply ${event.id}`))
        applied.set(event.id, (applied.get(event.id) ?? 0) + 1)
        return Promise.resolve({})
      },
    }
    return { applied, handler }
  }

  /** The service's listEvents, counted per reader: the reads (a read's first page; the pages after it are the same read). */
  function countedUpstream(): { upstream: Pick<UpstreamClient, "listEvents">; calls: () => number } {
    let calls = 0
    return {
      upstream: {
        listEvents: (query) => {
          if (!query?.page_cursor) calls++
          return h.upstream.listEvents(query)
        },
      },
      calls: () => calls,
    }
  }

  function reader(options: { id?: string; handler: EventHandler; upstream?: Pick<UpstreamClient, "listEvents">; solo?: boolean; pageSize?: number; maxAttempts?: number; leaseMs?: number }): EventReader {
    const created = createEventReader({
      db: h.db,
      id: options.id ?? `instance-${randomUUID().slice(0, 8)}`,
      upstream: options.upstream ?? h.upstream,
      handler: options.handler,
      solo: options.solo ?? false,
      pageSize: options.pageSize ?? 100,
      maxAttempts: options.maxAttempts ?? 3,
      retryBaseMs: 0,
      leaseMs: options.leaseMs ?? 3000,
    })
    readers.push(created)
    return created
  }

  async function cursorRow() {
    const [row] = await h.db.select().from(consoleEventReader).where(eq(consoleEventReader.id, 1))
    return row!
  }

  it("processes every event exactly once: ties on created_at across pages, events committed late inside the overlap, reads repeated", async () => {
    const { applied, handler } = counting()
    const r = reader({ handler, pageSize: 7 })
    await r.tick()
    expect(r.status().reader).toBe(true)
    await h.upstream.sandboxDeposit(profileId, { asset: "BTC", amount: "0.5" })
    const tie = new Date(Date.now() - 500)
    await tiedEvents(45, tie)
    await r.read()
    // More at the very created_at the cursor stands on, and some committed late with an earlier time.
    await tiedEvents(10, tie)
    await tiedEvents(3, new Date(tie.getTime() - 1000))
    await r.read()
    await r.read()

    const all = await serviceEvents()
    expect(all.length).toBeGreaterThan(60)
    expect([...applied.keys()].sort()).toEqual(all.map((e) => e.id).sort())
    expect([...applied.values()].every((n) => n === 1)).toBe(true)
    const [stored] = await h.db.select({ n: count() }).from(consoleEvents)
    expect(stored!.n).toBe(all.length)
    const rows = await h.db.select().from(consoleEvents)
    expect(rows.every((row) => row.status === "processed" && row.processedBy !== null && row.processedAt !== null)).toBe(true)
    // The cursor stands on the newest event in (created_at, id) order.
    const newest = [...rows].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).at(-1)!
    const cursor = await cursorRow()
    expect(cursor.cursorId).toBe(newest.id)
  })

  it("a failed processing is retried with its reason recorded, then parked; the cursor moves on; a replay after the fix processes it", async () => {
    const failing = new Set<string>()
    const { applied, handler } = counting(failing)
    const r = reader({ handler, maxAttempts: 3 })
    // Takes the lease and reads what is there already.
    await r.tick()
    const before = new Set((await serviceEvents()).map((e) => e.id))
    await h.upstream.sandboxDeposit(profileId, { asset: "ETH", amount: "1.25" })
    const fresh = (await serviceEvents()).filter((e) => !before.has(e.id))
    failing.add(fresh[0]!.id)
    await r.read()

    const row = async () => (await h.db.select().from(consoleEvents).where(eq(consoleEvents.id, fresh[0]!.id)))[0]!
    expect(await row()).toMatchObject({ status: "retrying", attempts: 1, processedAt: null })
    expect((await row()).lastError).toContain("cannot apply")
    // The events after it were processed: nothing waits behind a failure.
    expect(applied.get(fresh[1]!.id)).toBe(1)
    expect((await cursorRow()).cursorId).toBe(fresh.at(-1)!.id)

    await r.retryDue()
    expect(await row()).toMatchObject({ status: "retrying", attempts: 2 })
    await r.retryDue()
    expect(await row()).toMatchObject({ status: "parked", attempts: 3, nextAttemptAt: null })
    await r.retryDue()
    await r.read()
    expect(await row()).toMatchObject({ status: "parked", attempts: 3 })
    expect(applied.has(fresh[0]!.id)).toBe(false)

    failing.clear()
    const replayed = await r.replay(fresh[0]!.id)
    expect(replayed?.error).toBeNull()
    expect(replayed?.row).toMatchObject({ status: "processed", replays: 1, lastError: null })
    expect(applied.get(fresh[0]!.id)).toBe(1)
  })

  it("replaying processed events changes nothing already applied: one notification, one feed entry", async () => {
    const me: Staff = { email: `trader-${randomUUID().slice(0, 8)}@example.com`, role: "trader" }
    const first = await pollNotifications(h, me, null)
    const refreshed: number[] = []
    const r = reader({ handler: consoleEventHandler({ refreshBalances: () => refreshed.push(1) }) })
    await r.tick()
    const placed = await placeConversion(h, me, { profile_id: profileId, amount: "25.00", source_asset: "USD", target_asset: "USDP", ref_id: randomUUID() })
    await h.sandbox.settleDue()
    await h.upstream.sandboxDeposit(profileId, { asset: "USD", amount: "10.00" })
    const creditsBefore = (await latestCredits(h.db, 100)).length
    await r.read()

    const [intent] = await h.db.select().from(consoleIntents).where(eq(consoleIntents.recordId, placed.record.id))
    expect(intent).toMatchObject({ recordFinalStatus: "COMPLETED" })
    const finalAt = intent!.recordFinalAt
    // No service call for it: the event said so.
    let asked = 0
    const countAsks = (api: object): UpstreamClient =>
      new Proxy(api, {
        get: (t, p, r2) => {
          if (p === "getConversion") return (id: string) => (asked++, h.upstream.getConversion(id))
          if (p === "conversionsVia") return (which: Parameters<UpstreamClient["conversionsVia"]>[0]) => countAsks(h.upstream.conversionsVia(which))
          return Reflect.get(t, p, r2) as unknown
        },
      }) as UpstreamClient
    const noCalls = { ...h, upstream: countAsks(h.upstream) }
    const notified = await pollNotifications(noCalls, me, new Date(first.cursor), { eventsCoverOrchestrations: true })
    expect(asked).toBe(0)
    expect(notified.events.map((e) => [e.record_id, e.state])).toEqual([[placed.record.id, "COMPLETED"]])
    const credits = await latestCredits(h.db, 100)
    expect(credits.length).toBe(creditsBefore + 1)
    expect(credits[0]).toMatchObject({ profileId, asset: "USD", amount: "10.00" })
    expect(refreshed.length).toBeGreaterThan(0)

    const processed = await h.db.select({ id: consoleEvents.id }).from(consoleEvents).orderBy(asc(consoleEvents.createdAt))
    for (const { id } of processed) expect((await r.replay(id))?.row).toMatchObject({ status: "processed", replays: 1 })

    const [again] = await h.db.select().from(consoleIntents).where(eq(consoleIntents.recordId, placed.record.id))
    expect(again!.recordFinalAt).toEqual(finalAt)
    const renotified = await pollNotifications(noCalls, me, new Date(first.cursor), { eventsCoverOrchestrations: true })
    expect(renotified.events).toEqual(notified.events)
    expect(asked).toBe(0)
    expect(await latestCredits(h.db, 100)).toEqual(credits)
  })

  it("with the reader reading, a person's notifications do not ask the service about orchestrations in flight; without it they do", async () => {
    const me: Staff = { email: `trader-${randomUUID().slice(0, 8)}@example.com`, role: "trader" }
    let asked = 0
    const countAsks = (api: object): UpstreamClient =>
      new Proxy(api, {
        get: (t, p, r2) => {
          if (p === "getConversion") return (id: string) => (asked++, h.upstream.getConversion(id))
          if (p === "conversionsVia") return (which: Parameters<UpstreamClient["conversionsVia"]>[0]) => countAsks(h.upstream.conversionsVia(which))
          return Reflect.get(t, p, r2) as unknown
        },
      }) as UpstreamClient
    const deps = { ...h, upstream: countAsks(h.upstream) }
    const first = await pollNotifications(deps, me, null)
    // In flight at the service: not settled.
    await placeConversion(h, me, { profile_id: profileId, amount: "3.00", source_asset: "USD", target_asset: "USDP", ref_id: randomUUID() })
    asked = 0
    await pollNotifications(deps, me, new Date(first.cursor), { eventsCoverOrchestrations: true })
    expect(asked).toBe(0)
    await pollNotifications(deps, me, new Date(first.cursor), { eventsCoverOrchestrations: false })
    expect(asked).toBe(1)
  })

  it("two readers on one database: only the lease holder reads; one that lost the lease writes nothing; the holder stops renewing and the other takes over", async () => {
    const { applied, handler } = counting()
    const a = countedUpstream()
    const b = countedUpstream()
    const ra = reader({ id: "reader-a", handler, upstream: a.upstream, leaseMs: 500 })
    const rb = reader({ id: "reader-b", handler, upstream: b.upstream, leaseMs: 500 })
    await ra.tick()
    for (let i = 0; i < 3; i++) await Promise.all([ra.tick(), rb.tick()])
    expect(ra.status().reader).toBe(true)
    expect(rb.status().reader).toBe(false)
    expect(a.calls()).toBeGreaterThan(0)
    expect(b.calls()).toBe(0)

    // b reads anyway (a stale belief): its transactions find the lease is a's and write nothing.
    await h.upstream.sandboxDeposit(profileId, { asset: "USD", amount: "1.00" })
    const [{ n: before }] = (await h.db.select({ n: count() }).from(consoleEvents)) as [{ n: number }]
    await expect(rb.read()).rejects.toThrow(/lease/)
    const [{ n: after }] = (await h.db.select({ n: count() }).from(consoleEvents)) as [{ n: number }]
    expect(after).toBe(before)

    // a dies where it stands; b takes the lease once it lapses, and reads what a left.
    ra.halt()
    await until(async () => {
      await rb.tick()
      return rb.status().reader
    }, "the other reader to take the lease over")
    await h.upstream.sandboxDeposit(profileId, { asset: "USD", amount: "2.00" })
    await rb.read()
    const all = await serviceEvents()
    expect([...applied.keys()].sort()).toEqual(all.map((e) => e.id).sort())
    expect([...applied.values()].every((n) => n === 1)).toBe(true)
  })

  it("behind: no successful read for staleMs, whether nobody read since start or the reads fail; another instance sees the last read from the database", async () => {
    const { handler } = counting()
    let t = Date.now()
    let failing = false
    const upstream: Pick<UpstreamClient, "listEvents"> = {
      listEvents: (query) => (failing ? Promise.reject(new Error("the service is down")) : h.upstream.listEvents(query)),
    }
    const r = createEventReader({ db: h.db, id: "stale-reader", upstream, handler, solo: false, staleMs: 10_000, now: () => t })
    readers.push(r)
    expect(r.status().behind).toBe(false)
    t += 10_001
    // Started 10 s ago and has read nothing.
    expect(r.status().behind).toBe(true)
    await r.tick()
    expect(r.status()).toMatchObject({ reader: true, behind: false })
    t += 9_000
    expect(r.status().behind).toBe(false)
    failing = true
    t += 2_000
    await expect(r.read()).rejects.toThrow(/down/)
    expect(r.status().behind).toBe(true)
    // An instance that does not read learns of the last successful read from the lease row.
    const other = createEventReader({ db: h.db, id: "stale-other", upstream, handler, solo: false, staleMs: 10_000 })
    readers.push(other)
    await other.refreshLag()
    expect(other.status()).toMatchObject({ reader: false, behind: false })
    expect(other.status().lastReadSeconds).toBeLessThan(10)
    failing = false
    await r.read()
    expect(r.status().behind).toBe(false)
  })

  it("a clean stop gives the lease up: another instance reads on its next tick", async () => {
    const { handler } = counting()
    const ra = reader({ handler, leaseMs: 60_000 })
    const rb = reader({ handler, leaseMs: 60_000 })
    await ra.tick()
    await rb.tick()
    expect(rb.status().reader).toBe(false)
    await ra.stop()
    await rb.tick()
    expect(rb.status().reader).toBe(true)
  })

  it("a webhook hint wakes the reader once per read: 1,000 hints during a read cost one more read, not a thousand", async () => {
    const { handler } = counting()
    const counted = countedUpstream()
    // Reads never come due by the clock in this test: only hints make them.
    const r = createEventReader({ db: h.db, id: "woken", upstream: counted.upstream, handler, solo: true, pollMs: 600_000, wakeGapMs: 0 })
    readers.push(r)
    const reading = r.read()
    for (let i = 0; i < 1000; i++) r.wake()
    await reading
    await until(() => counted.calls() >= 2, "the one read the hints asked for")
    await sleep(50)
    expect(counted.calls()).toBe(2)
    // A hint when nothing is being read: one read.
    r.wake()
    await until(() => counted.calls() >= 3, "the read a hint asked for")
    await sleep(50)
    expect(counted.calls()).toBe(3)
    // On PGlite nobody else reads: no row is written for a hint.
    await r.hintElsewhere()
    expect((await cursorRow()).wakeAt).toBeNull()
  })

  it("a hint on an instance that does not read is left in the lease row; the reader's next tick reads at once", async () => {
    const { handler } = counting()
    const counted = countedUpstream()
    const reading = reader({ id: "holder", handler, upstream: counted.upstream })
    const other = reader({ id: "other", handler })
    await reading.tick()
    await other.tick()
    const calls = counted.calls()
    await reading.tick()
    // Not due by the clock (5 s): the tick did not read.
    expect(counted.calls()).toBe(calls)
    await other.hintElsewhere()
    expect((await cursorRow()).wakeAt).not.toBeNull()
    await reading.tick()
    expect(counted.calls()).toBe(calls + 1)
    expect((await cursorRow()).wakeAt).toBeNull()
    await h.db.execute(sql`select 1`)
  })
})
