import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Database } from "@/lib/db/client"
import { type ConsoleCreate, consoleCreatesBetween, reconcile } from "@/lib/console/statements/reconcile"
import type { SourceRecord } from "@/lib/console/statements/types"
import { toDecimal } from "@/lib/money"
import { createTestDatabase, testDrivers } from "@/test/db"
import { type IntentRow, insertIntentRows } from "@/test/intents"

const from = new Date("2026-11-20T00:00:00Z")
const to = new Date("2026-11-21T00:00:00Z")
const at = new Date("2026-11-20T09:00:00Z")

function execution(id: string, refId: string | null, base: string, status = "SETTLED"): SourceRecord {
  return {
    id,
    kind: "execution",
    label: "Buy BTCUSD",
    href: `/executions/p/${id}`,
    refId,
    placedBy: null,
    status,
    createdAt: at,
    movedAt: at,
    open: false,
    // Two legs, one record: a trade is reconciled once, never per leg.
    legs: [
      { asset: "USD", direction: "DEBIT", amount: toDecimal("100.00"), fee: toDecimal("0") },
      { asset: "BTC", direction: "CREDIT", amount: toDecimal(base), fee: toDecimal("0") },
    ],
    trade: { market: "BTCUSD", side: "BUY", base: toDecimal(base), quote: toDecimal("100.00"), baseAsset: "BTC", quoteAsset: "USD" },
  }
}

function create(id: string, refId: string, baseAmount: string, finalStatus: string | null = null): ConsoleCreate {
  return { id, operation: "create_execution", staffEmail: "t@example.com", state: "SUCCEEDED", refId, recordId: `rec-${id}`, status: "CREATED", finalStatus, request: { base_amount: baseAmount, ref_id: refId }, upstreamApi: null, createdAt: at }
}

describe("reconciling the console's creates with the service's records", () => {
  it("a matched trade is counted once; a different amount or a final status the service does not have is listed with both sides", () => {
    const r = reconcile(
      [create("a", "ref-a", "0.001"), create("b", "ref-b", "0.002"), create("c", "ref-c", "0.003", "SETTLED")],
      [execution("rec-a", "ref-a", "0.001"), execution("rec-b", "ref-b", "0.0025"), execution("rec-c", "ref-c", "0.003", "CREATED")],
      from,
      to,
    )
    expect(r).toMatchObject({ console_creates: 3, service_records: 3, matched: 1 })
    expect(r.lines.map((l) => [l.kind, l.console?.href, l.service.href, l.detail])).toEqual([
      ["amount_differs", "/intents/b", "/executions/p/rec-b", "asked 0.002, the service has 0.0025"],
      ["status_differs", "/intents/c", "/executions/p/rec-c", "the console has SETTLED, the service CREATED"],
    ])
  })

  it("a status the console has not caught up with is no difference; a record of another day or one the console placed is never placed elsewhere", () => {
    const early = { ...execution("rec-old", null, "0.1"), createdAt: new Date("2026-11-19T23:00:00Z") }
    const ours = { ...execution("rec-ours", "ref-x", "0.1"), placedBy: "t@example.com" }
    const r = reconcile([create("a", "ref-a", "0.001")], [execution("rec-a", "ref-a", "0.001", "SETTLED"), early, ours], from, to)
    expect(r.lines).toEqual([])
    expect(r.matched).toBe(1)
  })

  it("an orchestration that moved nothing (waiting for approval, rejected) has no transfers to find and is not missing; one that completed and is gone is", () => {
    const orchestration = (id: string, status: string): ConsoleCreate => ({ ...create(id, `ref-${id}`, "0"), operation: "create_conversion", upstreamApi: "orchestrations", status, request: { amount: "10.00" } })
    const r = reconcile([orchestration("w", "PENDING"), orchestration("r", "REJECTED"), orchestration("c", "COMPLETED")], [], from, to)
    expect(r.lines.map((l) => [l.kind, l.console?.intent_id])).toEqual([["missing_at_service", "c"]])
  })

  it("a create matched by the record id it was answered with, when the service's record carries no ref_id", () => {
    const r = reconcile([create("a", "ref-a", "0.001")], [execution("rec-a", null, "0.001")], from, to)
    expect(r).toMatchObject({ matched: 1, lines: [] })
  })
})

describe.each(testDrivers())("the console's creates as reconciliation reads them on %s", (driver) => {
  let database: Database
  beforeAll(async () => {
    database = await createTestDatabase(driver)
  })
  afterAll(async () => {
    await database?.close()
  })

  it("the amounts a create asked for come back exactly as written (8-decimal crypto, more digits than a double holds), and only those held as strings: the line names the difference to the last decimal", async () => {
    const profileId = "prof-1"
    const intent = (refId: string, operation: "create_execution" | "create_conversion", request: Record<string, unknown>, state: IntentRow["state"] = "SUCCEEDED"): IntentRow => ({
      staffEmail: "t@example.com",
      staffRole: "trader",
      operation,
      profileId,
      refId,
      request: { profile_id: profileId, ref_id: refId, ...request },
      state,
      recordId: `rec-${refId}`,
      recordStatus: "CREATED",
      createdAt: at,
    })
    await insertIntentRows(database.db, [
      intent("big", "create_execution", { base_amount: "123456789012345678901234.12345678" }),
      intent("tiny", "create_execution", { base_amount: "0.00000001" }),
      intent("quote", "create_execution", { quote_amount: "98765432109876543210.99" }),
      intent("conv", "create_conversion", { amount: "1000000000000000000.01" }),
      // A number in the request is not an amount the console sent (it sends strings): nothing to compare.
      intent("number", "create_conversion", { amount: 5 }),
      intent("refused", "create_execution", { base_amount: "1" }, "REFUSED"),
    ])
    const creates = await consoleCreatesBetween(database.db, profileId, from, to)
    expect(Object.fromEntries(creates.map((c) => [c.refId, c.request]))).toEqual({
      big: { base_amount: "123456789012345678901234.12345678" },
      tiny: { base_amount: "0.00000001" },
      quote: { quote_amount: "98765432109876543210.99" },
      conv: { amount: "1000000000000000000.01" },
      number: {},
    })

    const trade = (refId: string, base: string, quote: string): SourceRecord => ({ ...execution(`rec-${refId}`, refId, base), trade: { market: "BTCUSD", side: "BUY", base: toDecimal(base), quote: toDecimal(quote), baseAsset: "BTC", quoteAsset: "USD" } })
    const conversion = (refId: string, amount: string): SourceRecord => ({
      ...execution(`rec-${refId}`, refId, "0"),
      kind: "conversion",
      trade: undefined,
      legs: [{ asset: "USD", direction: "DEBIT", amount: toDecimal(amount), fee: toDecimal("0") }],
    })
    const r = reconcile(
      creates,
      [
        trade("big", "123456789012345678901234.12345679", "1.00"),
        trade("tiny", "0.00000001", "1.00"),
        trade("quote", "1", "98765432109876543210.99"),
        conversion("conv", "1000000000000000000.02"),
        conversion("number", "7.00"),
      ],
      from,
      to,
    )
    // Creates written at the same moment come in id order: compared by ref_id.
    expect(r.lines.map((l) => [l.kind, l.service.ref_id, l.detail]).sort((a, b) => String(a[1]).localeCompare(String(b[1])))).toEqual([
      ["amount_differs", "big", "asked 123456789012345678901234.12345678, the service has 123456789012345678901234.12345679"],
      ["amount_differs", "conv", "asked 1000000000000000000.01, the service has 1000000000000000000.02"],
    ])
    expect(r).toMatchObject({ console_creates: 5, matched: 3 })
  })
})
