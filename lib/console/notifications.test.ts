import { randomUUID } from "node:crypto"
import { eq } from "drizzle-orm"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import type { Staff } from "@/lib/auth/roles"
import { approveRequest, rejectRequest } from "@/lib/console/approvals/decisions"
import { submitConversion } from "@/lib/console/submission"
import { NOTIFICATION_LIMITS, pollNotifications } from "@/lib/console/notifications"
import type { ConsoleDeps } from "@/lib/console/operations"
import { savePolicy } from "@/lib/console/policy"
import { consoleIntents } from "@/lib/db/schema"
import { DEFAULT_POLICY, type Policy } from "@/lib/schemas/approvals"
import type { NotificationEvent, NotificationPage } from "@/lib/schemas/notifications"
import type { UpstreamClient } from "@/lib/upstream"
import { type ConsoleHarness, createConsoleHarness, placeConversion, placeExecution as placeExecutionOf } from "@/test/console"
import { testDrivers } from "@/test/db"
import { signsInBySso } from "@/test/approvals"
import { setIntentColumns } from "@/test/intents"

const checker: Staff = { email: "checker@example.com", role: "admin" }

/** Conversions of 100.00 USD and more wait for a second person. */
const TEST_POLICY: Policy = {
  ...DEFAULT_POLICY,
  approval_thresholds: { execution: { USD: "100000.00" }, conversion: { USD: "100.00" } },
  role_limits: {
    trader: { per_order: { USD: "100000.00" }, per_day: { USD: "1000000.00" } },
    admin: { per_order: { USD: "100000.00" }, per_day: { USD: "1000000.00" } },
  },
}

describe.each(testDrivers())("notifications against the sandbox on %s", (driver) => {
  let h: ConsoleHarness
  let profileId: string
  let me: Staff
  // Each test gets its own instance (and so its own check bookkeeping), service call count and clock.
  let deps: ConsoleDeps
  let calls: number
  let serviceDown: boolean
  let clock: number

  beforeAll(async () => {
    // The settlement worker is not started: records stay CREATED until a test settles them.
    h = await createConsoleHarness({ driver })
    profileId = (await h.upstream.listProfiles()).items[0]!.id
    await savePolicy(h.db, checker, TEST_POLICY)
  })
  beforeEach(async () => {
    me = { email: `trader-${randomUUID().slice(0, 8)}@example.com`, role: "trader" }
    // Known to the console from their single sign-on (a maker the console does not know has their requests voided).
    await signsInBySso(h.db, me)
    calls = 0
    serviceDown = false
    clock = Date.now()
    const reads = new Set<string | symbol>(["getQuoteExecution", "getConversion"])
    const counted = (target: object): UpstreamClient =>
      new Proxy(target, {
        get(obj, prop, receiver) {
          const value: unknown = Reflect.get(obj, prop, receiver)
          if (prop === "conversionsVia") return (api: Parameters<UpstreamClient["conversionsVia"]>[0]) => counted(h.upstream.conversionsVia(api))
          if (!reads.has(prop) || typeof value !== "function") return value
          return (...args: unknown[]) => {
            calls++
            if (serviceDown) return Promise.reject(new Error("service unavailable"))
            return (value as (...a: unknown[]) => Promise<unknown>).apply(obj, args)
          }
        },
      }) as UpstreamClient
    deps = { db: h.db, upstream: counted(h.upstream) }
  })
  afterAll(async () => {
    await h?.close()
  })

  const now = () => new Date(clock)
  const poll = (since: string | null, who: Staff = me) => pollNotifications(deps, who, since ? new Date(since) : null, { now })
  /** Two seconds later: past the recheck pause. */
  const later = () => {
    clock += 2_000
  }

  async function placeExecution(who: Staff = me) {
    const quote = (await h.upstream.listQuotes(["BTCUSD"])).find((q) => q.side === "BUY")!
    const placed = await placeExecutionOf(h, who, profileId, { quote_id: quote.id, base_amount: "0.0001", ref_id: randomUUID() })
    return placed.record
  }

  async function firstCursor(): Promise<string> {
    const first = await poll(null)
    expect(first.events).toEqual([])
    return first.cursor
  }

  const ids = (page: NotificationPage) => page.events.map((e) => e.id)

  it("a placement that settles later is announced with a link to it, once per record and state", async () => {
    const cursor = await firstCursor()
    const execution = await placeExecution()
    const before = await poll(cursor)
    expect(before.events).toEqual([])
    expect(calls).toBe(1)

    await h.sandbox.settleDue()
    later()
    const settled = await poll(before.cursor)
    expect(settled.events).toHaveLength(1)
    const event = settled.events[0]!
    expect(event).toMatchObject({
      kind: "execution",
      state: "SETTLED",
      record_id: execution.id,
      title: "Execution settled",
      href: `/executions/${profileId}/${execution.id}`,
    })
    expect(event.detail).toContain(execution.id)

    // Learned once: the next polls read it from the database, not the service; a repeat inside the
    // cursor's overlap carries the same id (the client drops it).
    const callsBefore = calls
    later()
    const again = await poll(settled.cursor)
    expect(ids(again)).toEqual([event.id])
    expect(calls).toBe(callsBefore)
    clock += NOTIFICATION_LIMITS.overlapMs
    const overlapping = await poll(again.cursor)
    expect(ids(overlapping)).toEqual([event.id])
    const past = await poll(overlapping.cursor)
    expect(past.events).toEqual([])

    // What the service answered at placement stays as it was (the audit trail reads it).
    const [intent] = await h.db.select().from(consoleIntents).where(eq(consoleIntents.recordId, execution.id))
    expect(intent).toMatchObject({ recordStatus: "CREATED", recordFinalStatus: "SETTLED" })
  })

  it(`checks at most ${NOTIFICATION_LIMITS.checksPerPoll} placements per poll, and every one in turn: none lost, none twice`, async () => {
    const cursor = await firstCursor()
    const placed = []
    for (let i = 0; i < 5; i++) placed.push(await placeExecution())
    await h.sandbox.settleDue()
    calls = 0
    later()
    const first = await poll(cursor)
    expect(calls).toBe(NOTIFICATION_LIMITS.checksPerPoll)
    expect(first.events).toHaveLength(NOTIFICATION_LIMITS.checksPerPoll)
    expect(first.unchecked).toBe(5 - NOTIFICATION_LIMITS.checksPerPoll)
    later()
    const second = await poll(first.cursor)
    expect(calls).toBe(5)
    expect(second.unchecked).toBe(0)
    const announced = new Set([...ids(first), ...ids(second)])
    expect([...announced].map((id) => id.split(":")[0])).toEqual(Array(5).fill("execution"))
    expect(new Set(second.events.map((e) => e.record_id))).toEqual(new Set(placed.map((p) => p.id)))
  })

  it("a placement is not asked about again within the recheck pause, however often the tabs poll", async () => {
    const cursor = await firstCursor()
    await placeExecution()
    calls = 0
    await poll(cursor)
    await poll(cursor)
    await poll(cursor)
    expect(calls).toBe(1)
  })

  it("a failing service is no error: the poll answers what it knows, and the event comes once the service answers", async () => {
    const cursor = await firstCursor()
    const execution = await placeExecution()
    await h.sandbox.settleDue()
    serviceDown = true
    later()
    const down = await poll(cursor)
    expect(down.events).toEqual([])
    expect(down.unchecked).toBe(1)
    serviceDown = false
    later()
    const up = await poll(down.cursor)
    expect(up.events.map((e) => [e.record_id, e.state])).toEqual([[execution.id, "SETTLED"]])
  })

  it("only the person's own placements, and not one that was already final when placed", async () => {
    const cursor = await firstCursor()
    const someoneElse: Staff = { email: `other-${randomUUID().slice(0, 8)}@example.com`, role: "trader" }
    await placeExecution(someoneElse)
    await h.sandbox.settleDue()
    // Placed after the settlement pass and marked final at once, as a record the service answers SETTLED.
    const mine = await placeExecution()
    await setIntentColumns(h.db, eq(consoleIntents.recordId, mine.id), { recordStatus: "SETTLED" })
    later()
    const page = await poll(cursor)
    expect(page.events).toEqual([])
    expect(calls).toBe(0)
  })

  it("a conversion cancelled at the service is announced with the conversion's page", async () => {
    const cursor = await firstCursor()
    const placed = await placeConversion(h, me, { profile_id: profileId, amount: "12.50", source_asset: "USD", target_asset: "USDP", ref_id: randomUUID() })
    await h.upstream.cancelConversion(placed.record.id)
    later()
    const page = await poll(cursor)
    expect(page.events).toHaveLength(1)
    expect(page.events[0]).toMatchObject({
      kind: "conversion",
      state: "CANCELLED",
      title: "Conversion cancelled",
      href: `/conversions/${placed.record.id}`,
    })
    expect(page.events[0]!.detail).toContain("12.50 USD → USDP")
  })

  async function request(amount = "150.00"): Promise<string> {
    const submission = await submitConversion(h, me, { profile_id: profileId, amount, source_asset: "USD", target_asset: "USDG", ref_id: randomUUID() })
    if (submission.kind !== "request") throw new Error("expected an approval request")
    return submission.request.id
  }

  it("a request's decision is announced to the maker: rejected with the reason, approved with the placed record", async () => {
    const cursor = await firstCursor()
    const rejected = await request()
    const approved = await request()
    await rejectRequest(h.db, checker, rejected, { reason: "over the desk's limit today" })
    await approveRequest(h, checker, approved, {}, { heldQuotes: () => h.upstream.listQuotes([]) })
    later()
    const page = await poll(cursor)
    const byId = new Map<string, NotificationEvent>(page.events.filter((e) => e.kind === "approval").map((e) => [e.record_id, e]))
    expect(byId.get(rejected)).toMatchObject({ state: "REJECTED", title: "Request rejected", href: "/approvals" })
    expect(byId.get(rejected)!.detail).toContain("over the desk's limit today")
    expect(byId.get(rejected)!.detail).toContain(checker.email)
    const [placed] = await h.db.select().from(consoleIntents).where(eq(consoleIntents.id, approved))
    expect(byId.get(approved)).toMatchObject({ state: "APPROVED", href: `/conversions/${placed!.recordId}` })
    // The checker is not told about someone else's request.
    expect((await pollNotifications(deps, checker, new Date(cursor), { now })).events.filter((e) => e.kind === "approval")).toEqual([])
  })

  it("a request that runs out of time is announced as expired", async () => {
    const cursor = await firstCursor()
    const id = await request()
    clock += TEST_POLICY.request_ttl_minutes * 60_000 + 1_000
    const page = await poll(cursor)
    expect(page.events.map((e) => [e.record_id, e.state, e.title])).toEqual([[id, "EXPIRED", "Request expired"]])
  })

  it("a browser's first poll only sets the cursor: what happened before, or what it learns then, is not news", async () => {
    await placeExecution()
    await h.sandbox.settleDue()
    later()
    const first = await poll(null)
    expect(first.events).toEqual([])
    expect(calls).toBe(1)
    expect(Date.parse(first.cursor)).toBe(clock)
    later()
    expect((await poll(first.cursor)).events).toEqual([])
  })
})
