import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Staff } from "@/lib/auth/roles"
import { staffRef } from "@/lib/auth/staff-ref"
import { submitConversion } from "@/lib/console/submission"
import { type ConsoleHarness, createConsoleHarness } from "@/test/console"
import { logLines } from "@/test/log-lines"

// Every line, debug included: what an operator shipping logs at debug would keep.
process.env.LOG_LEVEL = "debug"
process.env.NEXTAUTH_SECRET ??= "create-logs-tests-secret-0123456789-abcdefgh"

const trader: Staff = { email: "Some.Trader@example.com", role: "trader" }

describe("a create's log lines", () => {
  let h: ConsoleHarness
  beforeAll(async () => {
    h = await createConsoleHarness()
  }, 60_000)
  afterAll(async () => {
    await h?.close()
  })

  it("name the staff member by a reference, never by email", async () => {
    const profileId = (await h.upstream.listProfiles()).items[0]!.id
    const refId = randomUUID()
    const body = { profile_id: profileId, amount: "3.00", source_asset: "USD" as const, target_asset: "USDP" as const, ref_id: refId }
    const { lines } = await logLines(async () => {
      expect((await submitConversion(h, trader, body)).kind).toBe("placed")
      // The same ref_id for another amount: refused, on the trail.
      await expect(submitConversion(h, trader, { ...body, amount: "4.00" })).rejects.toThrow()
    })
    const succeeded = lines.find((line) => line.event === "intent.succeeded")
    expect(succeeded).toMatchObject({ staff: staffRef(trader.email) })
    for (const line of lines) expect(JSON.stringify(line)).not.toMatch(/@|some\.trader/i)
  })
})
