import { randomUUID } from "node:crypto"
import { count, desc, eq } from "drizzle-orm"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Staff } from "@/lib/auth/roles"
import { consoleApprovals, consoleBalanceSnapshots, consoleIntents, sandboxExecutions } from "@/lib/db/schema"
import { HISTORY_SNAPSHOT_BY, generateSandboxHistory } from "@/lib/console/sandbox-history"
import { OBSERVED_WITHIN_MS, profileStatement } from "@/lib/console/statements/statement"
import { takeSnapshot } from "@/lib/console/statements/snapshots"
import { statementQuerySchema } from "@/lib/schemas/statements"
import { type ConsoleHarness, createConsoleHarness, placeConversion, placeExecution } from "@/test/console"
import { problemOf } from "@/test/approvals"
import { testDrivers } from "@/test/db"

const trader: Staff = { email: "trader@example.com", role: "trader" }
const DAY_MS = 86_400_000
const day = (offset: number) => new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS + offset * DAY_MS).toISOString().slice(0, 10)
const isZero = (amount: string) => /^-?0(\.0+)?$/.test(amount)

describe.each(testDrivers())("a generated past week on %s", (driver) => {
  let h: ConsoleHarness
  let profiles: { id: string; nickname: string }[]
  const statement = (profileId: string, from: string) => profileStatement(h, statementQuerySchema.parse({ profile_id: profileId, from }))
  const balances = async () => Promise.all(profiles.map((p) => h.upstream.listBalances(p.id)))

  beforeAll(async () => {
    h = await createConsoleHarness({ driver })
    profiles = (await h.upstream.listProfiles()).items.map((p) => ({ id: p.id, nickname: p.nickname }))
    // As the snapshot job does at a start after midnight: today's cutoff's snapshot, read now.
    await takeSnapshot(h.db, h.upstream, { cutoff: new Date(`${day(0)}T00:00:00Z`), takenBy: "job:test" })
  })
  afterAll(async () => {
    await h?.close()
  })

  it("fills the 7 days before today with settled records of several kinds, markets and staff, leaves the balances now as they were, and every past day's statement ties out to the last decimal", async () => {
    const before = await balances()
    const answer = await generateSandboxHistory(h, { seed: 7 })
    expect(answer).toMatchObject({ seed: 7, from: `${day(-7)}T00:00:00.000Z`, to: `${day(0)}T00:00:00.000Z` })
    expect(answer.counts.executions).toBeGreaterThan(30)
    expect(answer.counts.conversions).toBeGreaterThan(3)
    expect(answer.counts.orchestrations).toBeGreaterThan(3)
    expect(answer.counts.deposits).toBeGreaterThan(3)
    expect(answer.counts.snapshots).toBeGreaterThanOrEqual(7)
    expect(answer.counts.approvals).toBeGreaterThan(0)
    expect(await balances()).toEqual(before)

    const markets = await h.db.selectDistinct({ market: sandboxExecutions.market }).from(sandboxExecutions)
    expect(markets.length).toBeGreaterThanOrEqual(4)
    const staff = await h.db.selectDistinct({ email: consoleIntents.staffEmail }).from(consoleIntents)
    expect(staff.length).toBeGreaterThanOrEqual(3)
    const [approved] = await h.db.select({ n: count() }).from(consoleApprovals).where(eq(consoleApprovals.state, "APPROVED"))
    expect(approved?.n).toBe(answer.counts.approvals)

    for (const profile of profiles) {
      for (let d = -7; d <= -1; d++) {
        const s = await statement(profile.id, day(d))
        expect(`${profile.nickname} ${day(d)} ${s.opening_basis} ${s.closing_basis} ${s.tie_out}`).toBe(`${profile.nickname} ${day(d)} observed observed ties_out`)
        expect(s.unexplained).toEqual([])
        expect(s.assets.filter((a) => !isZero(a.difference))).toEqual([])
        // Every record the desk placed is matched; the rest are listed as placed elsewhere, nothing else.
        expect(s.reconciliation.lines.filter((l) => l.kind !== "placed_elsewhere")).toEqual([])
      }
    }
    const treasury = await statement(profiles[0]!.id, day(-3))
    expect(new Set(treasury.movements.map((m) => m.kind)).size).toBeGreaterThanOrEqual(2)
    expect(treasury.movements.some((m) => m.placed_by !== null)).toBe(true)
    expect(treasury.markets.length).toBeGreaterThan(0)
  })

  it("is refused when run again (409 history_exists), and nothing changes", async () => {
    const rows = async () => ({
      intents: (await h.db.select({ n: count() }).from(consoleIntents))[0]?.n,
      snapshots: (await h.db.select({ n: count() }).from(consoleBalanceSnapshots))[0]?.n,
      executions: (await h.db.select({ n: count() }).from(sandboxExecutions))[0]?.n,
    })
    const before = await rows()
    const refused = await generateSandboxHistory(h, { seed: 7 }).then(
      () => null,
      (error: unknown) => problemOf(error),
    )
    expect(refused).toMatchObject({ status: 409, code: "history_exists" })
    expect(await rows()).toEqual(before)
  })

  it("after a day of trading through the console every day ties out; a silent movement of 3.50 USD today is a 3.50 USD difference on USD today, and nothing else changes", async () => {
    const profileId = profiles[1]!.id
    await h.upstream.sandboxDeposit(profileId, { asset: "USD", amount: "12345.67" })
    const buy = (await h.upstream.listQuotes(["ETHUSD"])).find((q) => q.side === "BUY")!
    await placeExecution(h, trader, profileId, { quote_id: buy.id, base_amount: "0.25", ref_id: randomUUID() })
    const sell = (await h.upstream.listQuotes(["BTCUSD"])).find((q) => q.side === "SELL")!
    await placeExecution(h, trader, profileId, { quote_id: sell.id, base_amount: "0.01", ref_id: randomUUID() })
    await placeConversion(h, trader, { profile_id: profileId, source_asset: "USD", target_asset: "USDP", amount: "2500.00", ref_id: randomUUID() })
    await h.sandbox.settleDue()

    const week = []
    for (let d = -7; d <= 0; d++) week.push(await statement(profileId, day(d)))
    for (const s of week) {
      expect(`${s.from} ${s.tie_out}`).toBe(`${s.from} ties_out`)
      expect(s.assets.filter((a) => !isZero(a.difference))).toEqual([])
    }
    const today = week[7]!
    expect(today.movements.filter((m) => m.placed_by === trader.email)).toHaveLength(3)

    await h.upstream.sandboxSilentMovement({ profile_id: profileId, asset: "USD", amount: "3.50" })
    const after = []
    for (let d = -7; d <= 0; d++) after.push(await statement(profileId, day(d)))
    const faulty = after[7]!
    expect(faulty.tie_out).toBe("difference")
    expect(faulty.assets.filter((a) => !isZero(a.difference)).map((a) => [a.asset, a.difference])).toEqual([["USD", "3.50"]])
    // Narrowed to the observations around it: the last snapshot read before it (the job's, at its start) and now.
    const [lastRead] = await h.db.select({ at: consoleBalanceSnapshots.takenAt }).from(consoleBalanceSnapshots).orderBy(desc(consoleBalanceSnapshots.takenAt)).limit(1)
    expect(faulty.unexplained.map((u) => [u.asset, u.amount, u.from])).toEqual([["USD", "3.50", lastRead!.at.toISOString()]])
    // Nothing else changes: the other assets, the movements, and every past day.
    expect(faulty.assets.filter((a) => a.asset !== "USD")).toEqual(today.assets.filter((a) => a.asset !== "USD"))
    expect(faulty.movements).toEqual(today.movements)
    expect(after.slice(0, 7)).toEqual(week.slice(0, 7))
  })

  it("stores its snapshots as taken by the generator, one per cutoff; the job's snapshot of today's cutoff, read too late to observe it, stays an observation of its own moment", async () => {
    const rows = await h.db.select().from(consoleBalanceSnapshots)
    const job = rows.find((r) => r.takenBy === "job:test")!
    const late = job.takenAt.getTime() - Date.parse(`${day(0)}T00:00:00Z`) > OBSERVED_WITHIN_MS
    expect(rows.filter((r) => r.takenBy === HISTORY_SNAPSHOT_BY).map((r) => r.cutoff?.toISOString().slice(0, 10)).sort()).toEqual(
      (late ? [-7, -6, -5, -4, -3, -2, -1, 0] : [-7, -6, -5, -4, -3, -2, -1]).map(day),
    )
    expect(job.cutoff?.toISOString() ?? null).toBe(late ? null : `${day(0)}T00:00:00.000Z`)
  })
})

describe("determinism", () => {
  it("the same seed on the same day, from the same balances, gives the same week; another seed another", async () => {
    const weekOf = async (seed: number) => {
      const h = await createConsoleHarness({ driver: "pglite" })
      try {
        const ids = (await h.upstream.listProfiles()).items.map((p) => p.id)
        const answer = await h.upstream.sandboxHistory({ seed })
        // Profiles get new ids in each database: compared by their place in the list.
        return JSON.parse(JSON.stringify(answer).replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, (id) => (ids.includes(id) ? `profile-${ids.indexOf(id)}` : id))) as unknown
      } finally {
        await h.close()
      }
    }
    const a = await weekOf(42)
    expect(await weekOf(42)).toEqual(a)
    expect(await weekOf(43)).not.toEqual(a)
    // Three fresh sandboxes, each migrated and seeded: slow on a busy machine.
  }, 180_000)
})
