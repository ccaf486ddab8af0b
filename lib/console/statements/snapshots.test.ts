import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { consoleBalanceSnapshots, consoleSnapshotJob } from "@/lib/db/schema"
import { createSnapshotJob, cutoffAtOrBefore, snapshotsBetween } from "@/lib/console/statements/snapshots"
import { type ConsoleHarness, createConsoleHarness } from "@/test/console"
import { testDrivers } from "@/test/db"

describe("cutoffAtOrBefore", () => {
  it("is 00:00 UTC of the instant's UTC day, whatever the time zone of the machine", () => {
    expect(cutoffAtOrBefore(Date.parse("2026-11-20T23:59:59.999Z")).toISOString()).toBe("2026-11-20T00:00:00.000Z")
    expect(cutoffAtOrBefore(Date.parse("2026-11-21T00:00:00.000Z")).toISOString()).toBe("2026-11-21T00:00:00.000Z")
  })
})

describe.each(testDrivers())("the balance snapshot job on %s", (driver) => {
  let h: ConsoleHarness
  let profileId: string

  beforeAll(async () => {
    h = await createConsoleHarness({ driver })
    profileId = (await h.upstream.listProfiles()).items[0]!.id
    await h.upstream.sandboxDeposit(profileId, { asset: "USD", amount: "1234.56" })
  })
  afterAll(async () => {
    await h?.close()
  })
  beforeEach(async () => {
    await h.db.delete(consoleBalanceSnapshots)
    await h.db.update(consoleSnapshotJob).set({ holder: null, leaseUntil: 0 })
  })

  it("catches up at start on the cutoff that passed while no instance ran, reading it at the time it was taken, once", async () => {
    let now = Date.parse("2026-11-20T10:15:00Z")
    const job = createSnapshotJob({ db: h.db, id: "instance-a", upstream: h.upstream, solo: false, now: () => now })
    const row = await job.tick()
    expect(row?.cutoff?.toISOString()).toBe("2026-11-20T00:00:00.000Z")
    expect(row?.takenAt.toISOString()).toBe("2026-11-20T10:15:00.000Z")
    const usd = row?.balances[profileId]?.find((b) => b.asset === "USD")
    // The service's own strings, as it answered them.
    expect(usd?.available).toBe((await h.upstream.listBalances(profileId, ["USD"]))[0]?.available)
    expect(usd?.available).toMatch(/^[0-9]+\.56$/)
    now += 60_000
    expect(await job.tick()).toBeNull()
    now = Date.parse("2026-11-21T00:00:05Z")
    expect((await job.tick())?.cutoff?.toISOString()).toBe("2026-11-21T00:00:00.000Z")
    const all = await snapshotsBetween(h.db, new Date("2026-11-19T00:00:00Z"), new Date("2026-11-22T00:00:00Z"))
    expect(all.map((s) => s.cutoff?.toISOString())).toEqual(["2026-11-20T00:00:00.000Z", "2026-11-21T00:00:00.000Z"])
    await job.stop()
  })

  it("two instances on one database: one holds the lease and takes the cutoff's snapshot, the other takes none", async () => {
    const now = () => Date.parse("2026-11-22T00:00:01Z")
    const a = createSnapshotJob({ db: h.db, id: "instance-a", upstream: h.upstream, solo: false, now })
    const b = createSnapshotJob({ db: h.db, id: "instance-b", upstream: h.upstream, solo: false, now })
    const [ra, rb] = await Promise.all([a.tick(), b.tick()])
    expect([ra, rb].filter((r) => r !== null)).toHaveLength(1)
    expect(await h.db.select().from(consoleBalanceSnapshots)).toHaveLength(1)
    const [lease] = await h.db.select().from(consoleSnapshotJob)
    expect(["instance-a", "instance-b"]).toContain(lease?.holder)
    // The holder stops: its lease is given up and the other takes the next cutoff.
    const holder = lease?.holder === "instance-a" ? a : b
    const other = holder === a ? b : a
    await holder.stop()
    const later = createSnapshotJob({ db: h.db, id: lease?.holder === "instance-a" ? "instance-b" : "instance-a", upstream: h.upstream, solo: false, now: () => Date.parse("2026-11-23T00:00:01Z") })
    expect((await later.tick())?.cutoff?.toISOString()).toBe("2026-11-23T00:00:00.000Z")
    await Promise.all([other.stop(), later.stop()])
  })
})
