import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Staff } from "@/lib/auth/roles"
import { lookupExecutionByRefId } from "@/lib/console/execution-lookup"
import { openIntent, settleIntent } from "@/lib/console/intents"
import { HttpProblem } from "@/lib/problem"
import { type ConsoleHarness, createConsoleHarness, placeExecution } from "@/test/console"
import { testDrivers } from "@/test/db"

const trader: Staff = { email: "trader@example.com", role: "trader" }

describe.each(testDrivers())("lookupExecutionByRefId on %s", (driver) => {
  let h: ConsoleHarness
  let profileId: string
  beforeAll(async () => {
    h = await createConsoleHarness({ driver })
    profileId = (await h.upstream.listProfiles()).items[0]!.id
  })
  afterAll(async () => {
    await h?.close()
  })

  async function problemOf(refId: string) {
    const error = await lookupExecutionByRefId(h, profileId, refId).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(HttpProblem)
    return (error as HttpProblem).problem
  }

  it("finds a placed execution by its ref_id, fresh from the service", async () => {
    const quote = (await h.upstream.listQuotes(["BTCUSD"])).find((q) => q.side === "BUY")!
    const refId = randomUUID()
    const placed = await placeExecution(h, trader, profileId, { quote_id: quote.id, base_amount: "0.001", ref_id: refId })
    await expect(lookupExecutionByRefId(h, profileId, refId)).resolves.toMatchObject({ id: placed.record.id, ref_id: refId })
  })

  it("says 'not placed' only when the service refused it; in flight is a 409; no intent cannot tell", async () => {
    const refused = randomUUID()
    const { intent } = await openIntent(h.db, { staff: trader, operation: "create_execution", profileId, refId: refused, request: { ref_id: refused } })
    await settleIntent(h.db, intent.id, { state: "FAILED", problem: { title: "Unprocessable Entity", status: 422 }, attempts: 1 })
    expect(await problemOf(refused)).toMatchObject({ status: 404, code: "not_placed", meta: { placed: false } })

    const pending = randomUUID()
    await openIntent(h.db, { staff: trader, operation: "create_execution", profileId, refId: pending, request: { ref_id: pending } })
    expect(await problemOf(pending)).toMatchObject({ status: 409, code: "in_flight", meta: { in_flight: true } })

    expect(await problemOf(randomUUID())).toMatchObject({ status: 404, code: "not_found", meta: { placed: "unknown" } })
  })
})
