import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Staff } from "@/lib/auth/roles"
import { cutoffAtOrBefore, takeSnapshot } from "@/lib/console/statements/snapshots"
import { extractText } from "unpdf"
import { statementCsv } from "@/lib/console/statements/export"
import { statementPdf } from "@/lib/console/statements/pdf"
import { amountString } from "@/lib/console/statements/model"
import { profileStatement } from "@/lib/console/statements/statement"
import { toDecimal } from "@/lib/money"
import { statementQuerySchema } from "@/lib/schemas/statements"
import { type ConsoleHarness, createConsoleHarness, placeConversion, placeExecution } from "@/test/console"
import { testDrivers } from "@/test/db"

const trader: Staff = { email: "trader@example.com", role: "trader" }
const DAY_MS = 86_400_000

describe.each(testDrivers())("a profile's statement against the sandbox on %s", (driver) => {
  let h: ConsoleHarness
  let profileId: string
  const today = () => new Date().toISOString().slice(0, 10)
  const statement = () => profileStatement(h, statementQuerySchema.parse({ profile_id: profileId, from: today() }))

  beforeAll(async () => {
    h = await createConsoleHarness({ driver })
    profileId = (await h.upstream.listProfiles()).items[1]!.id
  })
  afterAll(async () => {
    await h?.close()
  })

  it("a day of deposits, trades and conversions through the console ties out to the last decimal; a balance moved without a record is that difference, on that asset, between the two observations around it", async () => {
    // Today's cutoff has its snapshot (a cutoff's snapshot read now observes it only if
    // now is within 15 minutes of 00:00 UTC: a manual one is the observation either way).
    await takeSnapshot(h.db, h.upstream, { cutoff: null, takenBy: "admin@example.com" })
    await h.upstream.sandboxDeposit(profileId, { asset: "USD", amount: "25000.00" })
    const quote = (await h.upstream.listQuotes(["BTCUSD"])).find((q) => q.side === "BUY")!
    const trade = await placeExecution(h, trader, profileId, { quote_id: quote.id, base_amount: "0.01234567", ref_id: randomUUID() })
    const conversion = await placeConversion(h, trader, { profile_id: profileId, source_asset: "USD", target_asset: "USDP", amount: "1234.56", ref_id: randomUUID() })
    await h.sandbox.settleDue()

    const clean = await statement()
    expect(clean.closing_basis).toBe("observed")
    expect(clean.unexplained).toEqual([])
    expect(clean.assets.every((a) => a.difference.replace(/[0.]/g, "") === "")).toBe(true)
    const usd = clean.assets.find((a) => a.asset === "USD")!
    expect(usd.credits).toBe("25000.00")
    const byId = new Map(clean.movements.map((m) => [m.id, m]))
    expect(byId.get(trade.record.id)).toMatchObject({ kind: "execution", placed_by: "trader@example.com", label: "Buy BTCUSD" })
    expect(byId.get(trade.record.id)?.legs.map((l) => [l.asset, l.direction])).toEqual([["USD", "DEBIT"], ["BTC", "CREDIT"]])
    expect(byId.get(conversion.record.id)).toMatchObject({ kind: "conversion", placed_by: "trader@example.com" })
    const deposit = clean.movements.find((m) => m.kind === "deposit")
    expect(deposit).toMatchObject({ placed_by: null })
    expect(clean.markets).toEqual([expect.objectContaining({ market: "BTCUSD", side: "BUY", count: 1, base_volume: "0.01234567" })])

    const before = await takeSnapshot(h.db, h.upstream, { cutoff: null, takenBy: "admin@example.com" })
    await h.upstream.sandboxSilentMovement({ profile_id: profileId, asset: "USD", amount: "3.50" })
    const faulty = await statement()
    expect(faulty.unexplained.map((u) => [u.asset, u.amount, u.from])).toEqual([["USD", "3.50", before!.takenAt.toISOString()]])
    expect(Date.parse(faulty.unexplained[0]!.to)).toBeGreaterThan(before!.takenAt.getTime())
    expect(faulty.assets.find((a) => a.asset === "USD")?.difference).toBe("3.50")
    // Nothing else changes: the other assets and the movements are as they were.
    expect(faulty.assets.filter((a) => a.asset !== "USD")).toEqual(clean.assets.filter((a) => a.asset !== "USD"))
    expect(faulty.movements).toEqual(clean.movements)

    // The CSV has one row per leg, and its amounts add up to the page's credits and debits.
    const csv = await statementCsv(faulty).text()
    const [header, ...lines] = csv.trim().split(/\r?\n/)
    const columns = header!.split(",")
    const rows: Record<string, string>[] = lines.map((l) => Object.fromEntries(l.split(",").map((v, i) => [columns[i] ?? "", v])))
    expect(rows).toHaveLength(faulty.movements.reduce((n, m) => n + m.legs.length, 0))
    for (const a of faulty.assets) {
      const sum = (direction: string) => rows.filter((r) => r.asset === a.asset && r.direction === direction).reduce((t, r) => t.plus(toDecimal(r.amount ?? "")), toDecimal("0"))
      expect(amountString(a.asset, sum("CREDIT"))).toBe(a.credits)
      expect(amountString(a.asset, sum("DEBIT"))).toBe(a.debits)
    }
    expect(rows.find((r) => r.resource_id === trade.record.id && r.asset === "BTC")).toMatchObject({ market: "BTCUSD", side: "BUY", placed_by: "trader@example.com" })
  })

  it("reconciles the console's creates with the service's records: a record placed directly at the service is placed elsewhere, a console trade the service lost is missing at the service, each line linking both sides", async () => {
    await h.upstream.sandboxDeposit(profileId, { asset: "USD", amount: "5000.00" })
    const buy = async () => (await h.upstream.listQuotes(["BTCUSD"])).find((q) => q.side === "BUY")!
    const mine = await placeExecution(h, trader, profileId, { quote_id: (await buy()).id, base_amount: "0.001", ref_id: randomUUID() })
    const kept = await placeExecution(h, trader, profileId, { quote_id: (await buy()).id, base_amount: "0.002", ref_id: randomUUID() })
    const elsewhere = await h.upstream.createQuoteExecution(profileId, { quote_id: (await buy()).id, base_amount: "0.003", ref_id: randomUUID() })
    await h.sandbox.settleDue()

    const clean = (await statement()).reconciliation
    const about = (id: string) => clean.lines.filter((l) => l.service.id === id || l.console?.intent_id === id)
    expect(about(mine.record.id)).toEqual([])
    expect(about(kept.record.id)).toEqual([])
    expect(about(elsewhere.record.id).map((l) => [l.kind, l.record_kind, l.console, l.service.id, l.service.href, l.service.status])).toEqual([
      ["placed_elsewhere", "execution", null, elsewhere.record.id, `/executions/${profileId}/${elsewhere.record.id}`, "SETTLED"],
    ])

    const lost = await h.upstream.sandboxLoseRecord({ record_id: mine.record.id })
    expect(lost).toMatchObject({ kind: "execution", profile_id: profileId })
    const after = (await statement()).reconciliation
    const missing = after.lines.filter((l) => l.kind === "missing_at_service" && l.service.id === mine.record.id)
    expect(missing.map((l) => [l.record_kind, l.console?.placed_by, l.console?.href, l.console?.state, l.service.ref_id, l.service.href])).toEqual([
      ["execution", trader.email, `/intents/${mine.intentId}`, "SUCCEEDED", mine.record.ref_id, null],
    ])
    // The record the service still holds is matched as before; the one placed elsewhere is still listed, once.
    expect(after.lines.filter((l) => l.service.id === kept.record.id)).toEqual([])
    expect(after.lines.filter((l) => l.service.id === elsewhere.record.id)).toHaveLength(1)
    expect(after.matched).toBe(clean.matched - 1)
  })

  it("the PDF statement reads back with the same per-asset totals as the JSON and the CSV, a page number on every page", async () => {
    await h.upstream.sandboxDeposit(profileId, { asset: "USD", amount: "777.77" })
    const quote = (await h.upstream.listQuotes(["ETHUSD"])).find((q) => q.side === "BUY")!
    await placeExecution(h, trader, profileId, { quote_id: quote.id, base_amount: "0.0123", ref_id: randomUUID() })
    await h.sandbox.settleDue()
    const json = await statement()
    const pdf = new Uint8Array(await statementPdf(json, "Books profile").arrayBuffer())
    const { text } = await extractText(pdf, { mergePages: false })
    // Each asset's summary row, read back from the PDF's text: the amounts as the JSON has them.
    const lines = text.join("\n").split("\n")
    const csvRows = (await statementCsv(json).text()).trim().split(/\r?\n/).slice(1).map((l) => l.split(","))
    const csvSum = (asset: string, direction: string) => csvRows.filter((r) => r[7] === asset && r[8] === direction).reduce((t, r) => t.plus(toDecimal(r[9] ?? "")), toDecimal("0"))
    for (const a of json.assets) {
      const row = lines.find((l) => l.startsWith(`${a.asset} `))
      expect(row?.split(" ").slice(1).map((v) => v.replace(/,/g, ""))).toEqual([a.opening, a.credits, a.debits, a.fees, a.closing, a.difference])
      const [credits, debits] = row!.split(" ").slice(2, 4).map((v) => v.replace(/,/g, ""))
      expect([credits, debits]).toEqual([amountString(a.asset, csvSum(a.asset, "CREDIT")), amountString(a.asset, csvSum(a.asset, "DEBIT"))])
    }
    expect(json.assets.find((a) => a.asset === "USD")?.credits).not.toBe("0.00")
    expect(lines.some((l) => l.startsWith("Tie-out: "))).toBe(true)

    // Many movements run over pages: every page carries its number.
    const long = { ...json, movements: Array.from({ length: 60 }, () => json.movements).flat() }
    const pages = (await extractText(new Uint8Array(await statementPdf(long, "Books profile").arrayBuffer()), { mergePages: false })).text
    expect(pages.length).toBeGreaterThan(1)
    expect(pages.map((page, i) => page.includes(`Page ${i + 1}`))).toEqual(pages.map(() => true))
  })

  it("a past day with no snapshot claims no tie-out: both ends are reconstructed", async () => {
    const yesterday = new Date(cutoffAtOrBefore(Date.now()).getTime() - DAY_MS).toISOString().slice(0, 10)
    const past = await profileStatement(h, statementQuerySchema.parse({ profile_id: profileId, from: yesterday }))
    expect(past).toMatchObject({ opening_basis: "reconstructed", closing_basis: "reconstructed", tie_out: "not_claimed" })
  })
})
