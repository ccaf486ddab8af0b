import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { recordAuthEvent, listAuthEvents } from "@/lib/auth/sessions"
import { currentRoles } from "@/lib/auth/standing"
import { listDecisions, recordDecision } from "@/lib/console/approvals/decision-trail"
import { listAudit } from "@/lib/console/audit"
import { savePolicy } from "@/lib/console/policy"
import type { Database } from "@/lib/db/client"
import { TEST_POLICY, checker, otherTrader } from "@/test/approvals"
import { createTestDatabase, testDrivers } from "@/test/db"

/**
 * Trails written within one millisecond (a JS clock, or a transaction's shared now()) read
 * in the order they were written: they were once ordered by their random uuids, and read
 * two refusals on a decision trail (a CI run failed on it), two policy saves, or a refused
 * single sign-on and the next success, swapped.
 */
describe.each(testDrivers())("trails written in one millisecond on %s", (driver) => {
  let database: Database
  beforeAll(async () => {
    database = await createTestDatabase(driver)
  }, 60_000)
  afterAll(async () => {
    await database.close()
  })

  it("decision attempts made in the same millisecond are listed newest first in the order they were written", async () => {
    const change = "11111111-1111-4111-8111-111111111111"
    const at = new Date("2026-11-28T09:00:00.000Z")
    const written: [string, string][] = []
    for (let i = 0; i < 12; i++) {
      const staff = i % 2 ? otherTrader : { ...checker, email: "Admin@Example.com" }
      const outcome = `refusal_${i}`
      await recordDecision(database.db, { action: "policy_approve", intentIds: [change], staff, at, proof: null }, outcome)
      written.push([staff.email.toLowerCase(), outcome])
    }
    await recordDecision(database.db, { action: "policy_approve", intentIds: ["22222222-2222-4222-8222-222222222222"], staff: checker, at, proof: null }, "done")
    const trail = await listDecisions(database.db, { requestId: change, limit: 20 })
    expect(trail.map((d) => [d.staff_email, d.outcome])).toEqual(written.reverse())
    const latest = await listDecisions(database.db, { limit: 2 })
    expect(latest.map((d) => d.outcome)).toEqual(["done", "refusal_11"])
  })

  it("the audit trail lists policy saves of one millisecond newest first, and pages through them without a repeat or a gap", async () => {
    const at = new Date("2026-11-28T10:00:00.000Z")
    const percents = ["0.10", "0.20", "0.30", "0.40", "0.50"]
    for (const p of percents) await savePolicy(database.db, checker, { ...TEST_POLICY, price_tolerance_percent: p }, () => at)
    const first = await listAudit(database.db, { operation: "update_policy", limit: 3 })
    expect(first.items.map((e) => e.created_at)).toEqual(Array(3).fill("2026-11-28T10:00:00.000000Z"))
    const rest = await listAudit(database.db, { operation: "update_policy", limit: 3, page_cursor: first.next_page_cursor })
    expect(rest.next_page_cursor).toBeUndefined()
    const read = [...first.items, ...rest.items].map((e) => (e.request.after as { price_tolerance_percent: string }).price_tolerance_percent)
    expect(read).toEqual([...percents].reverse())
  })

  it("a refused single sign-on and the success after it in one transaction: the success is the person's standing", async () => {
    const email = "same.ms@example.com"
    await database.db.transaction(async (tx) => {
      await recordAuthEvent(tx, { kind: "sign_in_failed", email, detail: { provider: "oidc", subject: "s", reason: "no console role" } })
      await recordAuthEvent(tx, { kind: "signed_in", email, detail: { provider: "oidc", role: "viewer" } })
      await recordAuthEvent(tx, { kind: "sign_in_failed", email: "other.ms@example.com", detail: { provider: "oidc", subject: "o", reason: "no console role" } })
      await recordAuthEvent(tx, { kind: "signed_in", email: "other.ms@example.com", detail: { provider: "oidc", role: "trader" } })
      await recordAuthEvent(tx, { kind: "sign_in_failed", email: "other.ms@example.com", detail: { provider: "oidc", subject: "o", reason: "no console role" } })
    })
    const roles = await currentRoles(database.db, [email, "other.ms@example.com"])
    expect(roles.get(email)).toBe("viewer")
    expect(roles.get("other.ms@example.com")).toBeNull()
    expect((await listAuthEvents(database.db, { email })).map((e) => e.kind)).toEqual(["signed_in", "sign_in_failed"])
  })
})
