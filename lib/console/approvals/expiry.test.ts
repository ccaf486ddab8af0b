import { randomUUID } from "node:crypto"
import { eq } from "drizzle-orm"
import { beforeEach, describe, expect, it } from "vitest"
import type { Staff } from "@/lib/auth/roles"
import { withdrawRequest } from "@/lib/console/approvals/decisions"
import { END_LAPSED_EVERY_MS, endLapsed, endLapsedFor, expireDue } from "@/lib/console/approvals/expiry"
import { submitConversion } from "@/lib/console/submission"
import type { Db } from "@/lib/db/client"
import { consoleApprovals, consoleIntents } from "@/lib/db/schema"
import { ApprovalsFixture, statementsIn } from "@/test/approvals"
import type { ConsoleHarness } from "@/test/console"
import { testDrivers } from "@/test/db"
import { linesOf, logLines } from "@/test/log-lines"

/** The UPDATEs `run` sends to the requests and to the intents tables, in a transaction or not. */
async function updatesIn<T>(db: Db, run: () => Promise<T>): Promise<{ result: T; requests: number; intents: number }> {
  const { result, counts } = await statementsIn(db, "update", { requests: consoleApprovals, intents: consoleIntents }, run)
  return { result, ...counts }
}

/** The sweep and the check before a decision: what they end, and that with nothing to end they touch no intent. */
describe.each(testDrivers())("ending lapsed requests on %s", (driver) => {
  const f = new ApprovalsFixture(driver)
  let h: ConsoleHarness
  let me: Staff
  beforeEach(() => {
    ;({ h, me } = f)
  })

  async function request(amount: string): Promise<{ id: string; expiresAt: Date }> {
    const asked = await submitConversion(h, me, { profile_id: f.profileId, amount, source_asset: "USD", target_asset: "PYUSD", ref_id: randomUUID() })
    if (asked.kind !== "request") throw new Error("expected a request")
    return { id: asked.request.id, expiresAt: new Date(asked.request.expires_at) }
  }

  const stateOf = async (id: string) => (await h.db.select().from(consoleApprovals).where(eq(consoleApprovals.intentId, id)))[0]?.state
  const intentStateOf = async (id: string) => (await h.db.select().from(consoleIntents).where(eq(consoleIntents.id, id)))[0]?.state

  it("a sweep with nothing due updates no intent; one with a request due fails that request's intent", async () => {
    const { id, expiresAt } = await request("140.00")
    const idle = await updatesIn(h.db, () => expireDue(h.db, new Date(expiresAt.getTime() - 1)))
    expect(idle).toEqual({ result: 0, requests: 1, intents: 0 })
    expect(await stateOf(id)).toBe("PENDING")
    const due = await updatesIn(h.db, () => expireDue(h.db, expiresAt))
    expect(due).toEqual({ result: 1, requests: 1, intents: 1 })
    expect(await stateOf(id)).toBe("EXPIRED")
    expect(await intentStateOf(id)).toBe("FAILED")
  })

  it("a request its maker withdrew after a decision read it PENDING: the maker's lapsed access voids nothing, touches no intent, logs no approval.voided", async () => {
    const demoted = (email: string) => (email === me.email.toLowerCase() ? ("support" as const) : null)
    const { id, expiresAt } = await request("145.00")
    const read = { state: "PENDING", expiresAt, makerEmail: me.email }
    await withdrawRequest(h.db, me, id, {})
    const raced = await logLines(() => updatesIn(h.db, () => endLapsedFor(h.db, read, new Date(), demoted)))
    expect(raced.result).toEqual({ result: false, requests: 1, intents: 0 })
    expect(linesOf(raced.lines, "approval.voided")).toEqual([])
    expect(await stateOf(id)).toBe("WITHDRAWN")
    // The same check for a request still PENDING voids it and fails its intent.
    const other = await request("150.00")
    const voided = await logLines(() => updatesIn(h.db, () => endLapsedFor(h.db, { ...read, expiresAt: other.expiresAt }, new Date(), demoted)))
    expect(voided.result).toEqual({ result: true, requests: 1, intents: 1 })
    expect(linesOf(voided.lines, "approval.voided")).toEqual([expect.objectContaining({ requests: 1 })])
    expect(await stateOf(other.id)).toBe("VOIDED")
    expect(await intentStateOf(other.id)).toBe("FAILED")
  })

  it("the check before a decision ends only a PENDING request it finds lapsed, and answers whether it ended it", async () => {
    const demoted = (email: string) => (email === me.email.toLowerCase() ? ("support" as const) : null)
    const { id, expiresAt } = await request("155.00")
    const read = { state: "PENDING", expiresAt, makerEmail: me.email }
    // Still the maker's and in time: nothing ends.
    expect(await updatesIn(h.db, () => endLapsedFor(h.db, read, new Date()))).toEqual({ result: false, requests: 0, intents: 0 })
    await withdrawRequest(h.db, me, id, {})
    const late = new Date(expiresAt.getTime() + 1)
    // Read after it was withdrawn: no update at all, even past its time and with the maker demoted.
    expect(await updatesIn(h.db, () => endLapsedFor(h.db, { ...read, state: "WITHDRAWN" }, late, demoted))).toEqual({ result: false, requests: 0, intents: 0 })
    // Read PENDING before the withdrawal, checked past its time: nothing left to expire.
    expect(await updatesIn(h.db, () => endLapsedFor(h.db, read, late))).toEqual({ result: false, requests: 1, intents: 0 })
    expect(await stateOf(id)).toBe("WITHDRAWN")
  })

  it(`the sweep runs at most every ${END_LAPSED_EVERY_MS} ms, and again at once when the clock goes back`, async () => {
    const first = await request("160.00")
    const at = (ms: number) => new Date(first.expiresAt.getTime() + ms)
    await endLapsed(h.db, at(-1))
    expect(await stateOf(first.id)).toBe("PENDING")
    await endLapsed(h.db, at(-1 + END_LAPSED_EVERY_MS - 1))
    expect(await stateOf(first.id)).toBe("PENDING")
    await endLapsed(h.db, at(-1 + END_LAPSED_EVERY_MS))
    expect(await stateOf(first.id)).toBe("EXPIRED")
    // A request due before the last sweep's time: a sweep at an earlier time (the clock went back) ends it.
    const second = await request("165.00")
    expect(second.expiresAt.getTime()).toBeLessThan(at(-1 + END_LAPSED_EVERY_MS).getTime())
    await endLapsed(h.db, second.expiresAt)
    expect(await stateOf(second.id)).toBe("EXPIRED")
    // A sweep at the very time of the last one waits, though a request is due by then.
    const later = at(10 * END_LAPSED_EVERY_MS)
    await endLapsed(h.db, later)
    const third = await request("170.00")
    expect(third.expiresAt.getTime()).toBeLessThan(later.getTime())
    await endLapsed(h.db, later)
    expect(await stateOf(third.id)).toBe("PENDING")
  })
})
