import { randomUUID } from "node:crypto"
import { sql } from "drizzle-orm"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Staff } from "@/lib/auth/roles"
import { listAudit } from "@/lib/console/audit"
import {
  checkLimits,
  conversionSize,
  executionSize,
  limitsFor,
  listPolicyVersions,
  needsApproval,
  normalizePolicy,
  policyFromJson,
  policyView,
  readPolicy,
  savePolicy,
  usedToday,
  utcDay,
} from "@/lib/console/policy"
import { submitConversion } from "@/lib/console/submission"
import { toDecimal } from "@/lib/money"
import { HttpProblem } from "@/lib/problem"
import { DEFAULT_POLICY, type Policy } from "@/lib/schemas/approvals"
import { queryRows } from "@/lib/db/rows"
import { consolePolicy } from "@/lib/db/schema"
import { type ConsoleHarness, createConsoleHarness } from "@/test/console"
import { createTestDatabase, testDrivers } from "@/test/db"
import { insertIntentRows } from "@/test/intents"
import { spansInMemory } from "@/test/spans"

// The spans an operator's collector receives (docs/production.md, "Traces"), kept in memory here.
const exporter = spansInMemory()

const trader: Staff = { email: "trader@example.com", role: "trader" }
const admin: Staff = { email: "admin@example.com", role: "admin" }
const usd = (amount: string) => ({ amount: toDecimal(amount), currency: "USD" })

const POLICY: Policy = {
  ...DEFAULT_POLICY,
  approval_thresholds: { execution: { USD: "100.00", EUR: "90.00" }, conversion: { USD: "500.00" } },
  role_limits: { trader: { per_order: { USD: "1000.00" }, per_day: { USD: "2500.00" } } },
  staff_limits: { "desk@example.com": { per_order: { USD: "50.00" }, per_day: {} } },
}

function problemOf(fn: () => void): HttpProblem["problem"] {
  try {
    fn()
  } catch (error) {
    if (error instanceof HttpProblem) return error.problem
    throw error
  }
  throw new Error("expected a problem")
}

describe("the approval policy's rules", () => {
  it("a staff member's own limits win over their role's, whatever the case of the signed-in email", () => {
    expect(limitsFor(POLICY, { email: "desk@example.com", role: "trader" })?.per_order).toEqual({ USD: "50.00" })
    expect(limitsFor(POLICY, { email: "Desk@Example.COM", role: "trader" })?.per_order).toEqual({ USD: "50.00" })
    expect(limitsFor(POLICY, trader)?.per_order).toEqual({ USD: "1000.00" })
    expect(limitsFor(POLICY, admin)).toBeNull()
  })

  it("a staff limit saved under a mixed-case email is kept under the lower-case one, so it applies", () => {
    const saved = normalizePolicy({ ...POLICY, staff_limits: { "Maker@Example.com": { per_order: { USD: "10.00" }, per_day: {} } } })
    expect(saved.staff_limits).toEqual({ "maker@example.com": { per_order: { USD: "10.00" }, per_day: {} } })
    expect(saved.role_limits).toEqual(POLICY.role_limits)
    expect(problemOf(() => checkLimits(saved, { email: "maker@example.com", role: "trader" }, usd("10.01"), toDecimal("0"))).meta).toMatchObject({
      limit: "per_order",
      per_order_limit: "10.00",
    })
  })

  it("the same email listed twice in different case is refused, naming the entry", () => {
    const limits = { per_order: {}, per_day: {} }
    const error = problemOf(() => normalizePolicy({ ...POLICY, staff_limits: { "a@example.com": limits, "A@example.com": limits } }))
    expect([error.status, error.code]).toEqual([400, "validation_failed"])
    expect(error.meta).toEqual({ fields: { "staff_limits.A@example.com": "is listed twice (emails compare without case)" } })
  })

  it("an order exactly at the limit per order is accepted; one cent over is refused with the numbers", () => {
    expect(() => checkLimits(POLICY, trader, usd("1000.00"), toDecimal("0"))).not.toThrow()
    const error = problemOf(() => checkLimits(POLICY, trader, usd("1000.01"), toDecimal("0")))
    expect(error.status).toBe(422)
    expect(error.code).toBe("limit_exceeded")
    expect(error.meta).toEqual({
      currency: "USD",
      order_amount: "1000.01",
      used_today: "0.00",
      per_order_limit: "1000.00",
      per_day_limit: "2500.00",
      limit: "per_order",
    })
    expect(error.detail).toBe("This order of 1,000.01 USD is over your limit per order of 1,000.00 USD.")
  })

  it("an order that brings the day exactly to the daily limit is accepted; one cent more is refused", () => {
    expect(() => checkLimits(POLICY, trader, usd("500.00"), toDecimal("2000.00"))).not.toThrow()
    const error = problemOf(() => checkLimits(POLICY, trader, usd("500.01"), toDecimal("2000.00")))
    expect(error.meta).toEqual({
      currency: "USD",
      order_amount: "500.01",
      used_today: "2000.00",
      per_order_limit: "1000.00",
      per_day_limit: "2500.00",
      limit: "per_day",
    })
    expect(error.detail).toBe("Your daily limit is 2,500.00 USD (UTC day); you have used 2,000.00 USD today and this order adds 500.01 USD.")
  })

  it("a checker approving a maker's order is told whose limit it is over, per order and per day", () => {
    const maker = { email: "maker@example.com", role: "trader" } as const
    const perOrder = problemOf(() => checkLimits(POLICY, maker, usd("1000.01"), toDecimal("0"), { whose: maker.email }))
    expect(perOrder.detail).toBe("This order of 1,000.01 USD is over maker@example.com's limit per order of 1,000.00 USD.")
    const perDay = problemOf(() => checkLimits(POLICY, maker, usd("500.01"), toDecimal("2000.00"), { whose: maker.email }))
    expect(perDay.detail).toBe(
      "maker@example.com's daily limit is 2,500.00 USD (UTC day); they have used 2,000.00 USD today and this order adds 500.01 USD.",
    )
    expect([perOrder.meta?.limit, perDay.meta?.limit]).toEqual(["per_order", "per_day"])
  })

  it("a currency, role or limit the policy leaves out limits nothing", () => {
    expect(() => checkLimits(POLICY, trader, { amount: toDecimal("1000000"), currency: "EUR" }, toDecimal("1000000"))).not.toThrow()
    expect(() => checkLimits(POLICY, admin, usd("1000000"), toDecimal("0"))).not.toThrow()
    // A per-day limit with no per-order one, and the reverse.
    const desk = { email: "desk@example.com", role: "trader" } as const
    expect(() => checkLimits(POLICY, desk, usd("50.00"), toDecimal("1000000"))).not.toThrow()
    const dayOnly: Policy = { ...POLICY, role_limits: { trader: { per_order: {}, per_day: { USD: "100.00" } } } }
    expect(problemOf(() => checkLimits(dayOnly, trader, usd("100.01"), toDecimal("0"))).meta).toMatchObject({ limit: "per_day", per_order_limit: null })
  })

  it("an order exactly at the approval threshold waits; one cent under is placed at once", () => {
    expect(needsApproval(POLICY, "execution", usd("100.00"))).toBe(true)
    expect(needsApproval(POLICY, "execution", usd("99.99"))).toBe(false)
    expect(needsApproval(POLICY, "conversion", usd("100.00"))).toBe(false)
    expect(needsApproval(POLICY, "conversion", usd("500.00"))).toBe(true)
    expect(needsApproval(POLICY, "conversion", usd("499.99"))).toBe(false)
    // A currency without a threshold never waits.
    expect(needsApproval(POLICY, "execution", { amount: toDecimal("1000000"), currency: "SGD" })).toBe(false)
  })

  it("an execution's size is its quote_amount, or base_amount × the price rounded up to the cent, in the market's fiat", () => {
    const size = executionSize({ quote_amount: "12.30" }, { market: "BTCEUR", price: "60000" })
    expect([size.amount.toFixed(2), size.currency]).toEqual(["12.30", "EUR"])
    const base = executionSize({ base_amount: "0.00001" }, { market: "BTCUSD", price: "60000.01" })
    expect([base.amount.toFixed(8), base.currency]).toEqual(["0.61000000", "USD"])
    expect(executionSize({ base_amount: "0.001" }, { market: "ETHUSD", price: "2000" }).amount.toFixed(8)).toBe("2.00000000")
    expect(() => executionSize({ quote_amount: "1" }, { market: "BTCXYZ", price: "1" })).toThrow("market BTCXYZ has no fiat currency")
  })

  it("a conversion's size is its amount in USD", () => {
    const size = conversionSize({ amount: "25.50" })
    expect([size.amount.toFixed(2), size.currency]).toEqual(["25.50", "USD"])
  })

  it("the UTC day runs from midnight to midnight", () => {
    expect(utcDay(new Date("2026-03-01T23:59:59.999Z"))).toEqual({ start: new Date("2026-03-01T00:00:00Z"), end: new Date("2026-03-02T00:00:00Z") })
    expect(utcDay(new Date("2026-03-02T00:00:00Z")).start).toEqual(new Date("2026-03-02T00:00:00Z"))
  })

  it("the saved policy's JSON, as a query answers it, or the defaults when none was saved", () => {
    expect(policyFromJson(null)).toBe(DEFAULT_POLICY)
    expect(policyFromJson(undefined)).toBe(DEFAULT_POLICY)
    expect(policyFromJson(POLICY)).toEqual(POLICY)
    expect(policyFromJson(JSON.stringify(POLICY))).toEqual(POLICY)
    expect(() => policyFromJson({ ...POLICY, request_ttl_minutes: 0 })).toThrow()
  })
})

describe("the policy in a console's database", () => {
  let h: ConsoleHarness
  let profileId: string
  beforeAll(async () => {
    h = await createConsoleHarness()
    profileId = (await h.upstream.listProfiles()).items[0]!.id
  })
  afterAll(async () => {
    await h?.close()
  })

  it("a fresh console with no saved policy places orders under the defaults: placed, waiting at the threshold, refused over the limit", async () => {
    expect(await readPolicy(h.db)).toEqual({ policy: DEFAULT_POLICY, version: 0, updatedAt: null, updatedBy: null })
    const view = await policyView(h.db, new Date())
    expect([view.policy, view.updated_at, view.updated_by]).toEqual([DEFAULT_POLICY, null, null])
    const convert = (amount: string) =>
      submitConversion(h, trader, { profile_id: profileId, amount, source_asset: "USD", target_asset: "USDG", ref_id: randomUUID() })
    expect((await convert("25.00")).kind).toBe("placed")
    expect((await convert("9999.99")).kind).toBe("placed")
    // The default threshold for a conversion is 10,000.00 USD: at it, the order waits.
    const waits = await convert("10000.00")
    expect(waits.kind).toBe("request")
    // Judged under the defaults: version 0.
    if (waits.kind === "request") expect(waits.request.policy_version).toBe(0)
    // The default trader's limit per order is 50,000.00 USD.
    const over = await convert("50000.01").catch((e: unknown) => e)
    expect(over).toBeInstanceOf(HttpProblem)
    expect((over as HttpProblem).problem.meta).toMatchObject({ limit: "per_order", per_order_limit: "50000.00" })
  })

  it("saving puts the change on the audit trail, the policy before and after; the view shows who saved it", async () => {
    const first = new Date("2026-03-01T10:00:00Z")
    const was = (await readPolicy(h.db)).version
    const stored = await savePolicy(h.db, admin, POLICY, () => first)
    expect(stored).toEqual({ policy: POLICY, version: was + 1, updatedAt: first, updatedBy: admin.email })
    expect(await readPolicy(h.db)).toEqual(stored)
    const second: Policy = { ...POLICY, price_tolerance_percent: "0.75" }
    const next = await savePolicy(h.db, admin, second, () => new Date("2026-03-01T11:00:00Z"))
    expect(next.version).toBe(was + 2)
    // Every save is a version, kept and numbered: both are there, newest first.
    expect((await listPolicyVersions(h.db, 2)).map((v) => [v.version, v.policy, v.created_by])).toEqual([
      [was + 2, second, admin.email],
      [was + 1, POLICY, admin.email],
    ])
    const trail = await listAudit(h.db, { operation: "update_policy", limit: 2 })
    expect(trail.items.map((e) => [e.request.before, e.request.after])).toEqual([
      [POLICY, second],
      [DEFAULT_POLICY, POLICY],
    ])
    const view = await policyView(h.db, new Date("2026-03-01T12:00:00Z"))
    expect([view.updated_at, view.updated_by, view.day, view.version]).toEqual(["2026-03-01T11:00:00.000Z", admin.email, "2026-03-01", was + 2])
    expect(trail.items[0]?.request.version).toBe(was + 2)
  })

  it("reading the policy, and the day's usage beside it, are each a database span named for what they read", async () => {
    exporter.reset()
    await readPolicy(h.db)
    await policyView(h.db, new Date())
    await usedToday(h.db, trader.email, "USD", new Date())
    const spans = exporter.getFinishedSpans().map((span) => [span.name, span.attributes["console.db.group"]])
    expect(spans).toEqual([
      ["console.policy.read", "policy.read"],
      ["console.policy.read", "policy.read"],
      ["console.usage.read", "usage.read"],
      ["console.usage.read", "usage.read"],
    ])
  })

  it("what a staff member used today: their creates of the UTC day in that currency, but not refused ones", async () => {
    const email = `maker-${randomUUID().slice(0, 8)}@example.com`
    const day = new Date("2027-06-15T12:00:00Z")
    const row = (over: Record<string, unknown>) => ({
      staffEmail: email,
      staffRole: "trader" as const,
      operation: "create_execution" as const,
      profileId,
      refId: randomUUID(),
      state: "SUCCEEDED" as const,
      request: {},
      sizeAmount: "10.00",
      sizeCurrency: "USD",
      createdAt: day,
      ...over,
    })
    await insertIntentRows(h.db, [
      row({}),
      row({ operation: "create_conversion", state: "AWAITING_APPROVAL", sizeAmount: "20.00" }),
      row({ state: "PENDING", sizeAmount: "0.01", createdAt: new Date("2027-06-15T00:00:00Z") }),
      row({ state: "FAILED", sizeAmount: "1000.00" }),
      row({ sizeCurrency: "EUR", sizeAmount: "5.00" }),
      row({ createdAt: new Date("2027-06-14T23:59:59.999Z"), sizeAmount: "300.00" }),
      row({ createdAt: new Date("2027-06-16T00:00:00Z"), sizeAmount: "400.00" }),
      row({ staffEmail: "someone-else@example.com", sizeAmount: "500.00" }),
    ])
    expect((await usedToday(h.db, email, "USD", day)).toFixed(2)).toBe("30.01")
    expect((await usedToday(h.db, email, "EUR", day)).toFixed(2)).toBe("5.00")
    expect((await usedToday(h.db, email, "SGD", day)).toFixed(2)).toBe("0.00")

    const view = await policyView(h.db, day)
    expect(view.day).toBe("2027-06-15")
    expect(view.usage_today.filter((u) => u.staff_email === email)).toEqual([
      { staff_email: email, currency: "EUR", used_today: "5.00", per_day: null, per_order: null },
      { staff_email: email, currency: "USD", used_today: "30.01", per_day: "2500.00", per_order: "1000.00" },
    ])
    expect(view.usage_today.find((u) => u.staff_email === "someone-else@example.com")).toMatchObject({ used_today: "500.00" })
  })
})

// PGlite has one connection, so saves cannot overlap there; on Postgres they can.
describe.runIf(testDrivers().includes("postgres"))("saving the policy on Postgres", () => {
  it("a save waits for one in progress, so its audit entry's `before` is the policy that one saved", async () => {
    const database = await createTestDatabase("postgres")
    try {
      const { db } = database
      const saved: Policy = { ...POLICY, price_tolerance_percent: "1.5" }
      let commit!: () => void
      const committing = new Promise<void>((resolve) => (commit = resolve))
      let written!: () => void
      const wrote = new Promise<void>((resolve) => (written = resolve))
      // Another save in progress, as savePolicy makes it: the lock, then the row.
      const first = db.transaction(async (tx) => {
        await tx.execute(sql`select pg_advisory_xact_lock(hashtext('console_policy'))`)
        await tx.insert(consolePolicy).values({ id: 1, policy: saved, updatedAt: new Date(), updatedBy: admin.email })
        written()
        await committing
      })
      await wrote
      const second = savePolicy(db, admin, POLICY)
      // Until the save is seen waiting for a lock (the test's timeout bounds this).
      for (;;) {
        const [row] = await queryRows<{ waiting: number }>(db, sql`select count(*)::int as waiting from pg_locks where not granted`)
        if (row?.waiting) break
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      commit()
      await first
      await second
      const trail = await listAudit(db, { operation: "update_policy", limit: 1 })
      expect(trail.items.map((e) => [e.request.before, e.request.after])).toEqual([[saved, POLICY]])
    } finally {
      await database.close()
    }
  })
})
