import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Staff } from "@/lib/auth/roles"
import { listDecisions, recordDecision } from "@/lib/console/approvals/decision-trail"
import type { Database } from "@/lib/db/client"
import { createTestDatabase, testDrivers } from "@/test/db"

const admin: Staff = { email: "Admin@Example.com", role: "admin" }
const trader: Staff = { email: "trader@example.com", role: "trader" }

describe.each(testDrivers())("the decision trail on %s", (driver) => {
  let database: Database
  beforeAll(async () => {
    database = await createTestDatabase(driver)
  }, 60_000)
  afterAll(async () => {
    await database.close()
  })

  // A refusal is written within a millisecond of the attempt before it: the trail once broke
  // such ties by the rows' random ids, and read two refusals in the wrong order.
  it("attempts made in the same millisecond are listed newest first in the order they were written", async () => {
    const change = "11111111-1111-4111-8111-111111111111"
    const at = new Date("2026-11-28T09:00:00.000Z")
    const written: [string, string][] = []
    for (let i = 0; i < 12; i++) {
      const staff = i % 2 ? trader : admin
      const outcome = `refusal_${i}`
      await recordDecision(database.db, { action: "policy_approve", intentIds: [change], staff, at, proof: null }, outcome)
      written.push([staff.email.toLowerCase(), outcome])
    }
    await recordDecision(database.db, { action: "policy_approve", intentIds: ["22222222-2222-4222-8222-222222222222"], staff: admin, at, proof: null }, "done")
    const trail = await listDecisions(database.db, { requestId: change, limit: 20 })
    expect(trail.map((d) => [d.staff_email, d.outcome])).toEqual(written.reverse())
    const latest = await listDecisions(database.db, { limit: 2 })
    expect(latest.map((d) => d.outcome)).toEqual(["done", "refusal_11"])
  })
})
