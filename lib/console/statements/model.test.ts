import { readFileSync } from "node:fs"
import path from "node:path"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { buildStatement } from "@/lib/console/statements/model"
import type { Anchor, Leg, SourceRecord } from "@/lib/console/statements/types"
import { toDecimal } from "@/lib/money"

/**
 * The oracle counts in integer units of each asset's last decimal (BigInt): nothing in it
 * is a float, and amounts go past 2^53 units, where a path through a JS number would lose digits.
 */
const SCALE: Record<string, number> = { USD: 2, BTC: 8, ETH: 8 }
const ASSETS = Object.keys(SCALE)
const FROM = Date.parse("2026-11-20T00:00:00Z")
const TO = Date.parse("2026-11-21T00:00:00Z")
const HOUR = 3_600_000

function units(asset: string, n: bigint): string {
  const scale = SCALE[asset]!
  const negative = n < 0n
  const digits = (negative ? -n : n).toString().padStart(scale + 1, "0")
  return `${negative ? "-" : ""}${digits.slice(0, -scale)}.${digits.slice(-scale)}`
}

interface GenLeg {
  asset: string
  credit: boolean
  amount: bigint
  fee: bigint
}
interface GenRecord {
  at: number
  legs: GenLeg[]
}

const legArb = fc.record({
  asset: fc.constantFrom(...ASSETS),
  credit: fc.boolean(),
  amount: fc.bigInt({ min: 1n, max: 10n ** 17n }),
  fee: fc.oneof(fc.constant(0n), fc.bigInt({ min: 0n, max: 10n ** 9n })),
})
const recordArb = fc.record({
  at: fc.integer({ min: FROM - 6 * HOUR, max: TO + 6 * HOUR }),
  legs: fc.array(legArb, { minLength: 1, maxLength: 2 }),
})
const scenarioArb = fc.record({
  start: fc.record({ USD: fc.bigInt({ min: 0n, max: 10n ** 18n }), BTC: fc.bigInt({ min: 0n, max: 10n ** 18n }), ETH: fc.bigInt({ min: 0n, max: 10n ** 18n }) }),
  records: fc.array(recordArb, { maxLength: 40 }),
  // Observations: the first at the opening cutoff's snapshot (a little after it), the last after the period.
  openingDelay: fc.integer({ min: 0, max: HOUR }),
  closingDelay: fc.integer({ min: 0, max: 6 * HOUR }),
  between: fc.array(fc.integer({ min: FROM + HOUR, max: TO - 1 }), { maxLength: 3 }),
})

const effect = (l: GenLeg) => (l.credit ? l.amount - l.fee : -(l.amount + l.fee))

/** The oracle: each asset's balance at `t` (records at exactly `t` not yet in), plus any silent movement before `t`. */
function oracleAt(start: Record<string, bigint>, records: GenRecord[], t: number, silent?: { asset: string; amount: bigint; at: number }): Map<string, bigint> {
  const out = new Map(Object.entries(start))
  for (const r of records) if (r.at < t) for (const l of r.legs) out.set(l.asset, (out.get(l.asset) ?? 0n) + effect(l))
  if (silent && silent.at < t) out.set(silent.asset, (out.get(silent.asset) ?? 0n) + silent.amount)
  return out
}

function toRecords(records: GenRecord[]): SourceRecord[] {
  return records.map((r, i) => ({
    id: `r${String(i).padStart(3, "0")}`,
    kind: "transfer",
    label: "Record",
    href: `/transfers/r${i}`,
    refId: null,
    placedBy: null,
    status: "COMPLETED",
    createdAt: new Date(r.at - 1000),
    movedAt: new Date(r.at),
    open: false,
    legs: r.legs.map((l): Leg => ({ asset: l.asset, direction: l.credit ? "CREDIT" : "DEBIT", amount: toDecimal(units(l.asset, l.amount)), fee: toDecimal(units(l.asset, l.fee)) })),
  }))
}

function anchor(at: number, balances: Map<string, bigint>, source: Anchor["source"] = "snapshot"): Anchor {
  return { at: new Date(at), source, cutoff: null, balances: new Map([...balances].map(([a, n]) => [a, toDecimal(units(a, n))])) }
}

const DECIMAL = /^-?[0-9]+\.[0-9]+$/

describe("the statement model", () => {
  it("over random movement sequences, opening + movements = closing to the last decimal, and both ends are the oracle's", () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const times = [FROM + s.openingDelay, ...s.between, TO + s.closingDelay]
        const anchors = times.map((t) => anchor(t, oracleAt(s.start, s.records, t)))
        const st = buildStatement({ profileId: "p", from: new Date(FROM), to: new Date(TO), records: toRecords(s.records), anchors, openingObserved: true, closingObserved: true })
        expect(st.tie_out).toBe("ties_out")
        expect(st.unexplained).toEqual([])
        const opening = oracleAt(s.start, s.records, FROM)
        const closing = oracleAt(s.start, s.records, TO)
        for (const a of st.assets) {
          expect(a.opening).toBe(units(a.asset, opening.get(a.asset)!))
          expect(a.closing).toBe(units(a.asset, closing.get(a.asset)!))
          expect(a.tie_out).toBe("ties_out")
          for (const v of [a.opening, a.credits, a.debits, a.fees, a.closing, a.difference]) expect(v).toMatch(DECIMAL)
          // Each asset's running balance ends at its closing.
          const legs = st.movements.flatMap((m) => m.legs).filter((l) => l.asset === a.asset)
          if (legs.length > 0) expect(legs[legs.length - 1]!.balance).toBe(a.closing)
        }
        expect(st.movements.every((m, i, all) => i === 0 || all[i - 1]!.at <= m.at)).toBe(true)
        expect(st.movements).toHaveLength(s.records.filter((r) => r.at >= FROM && r.at < TO).length)
        // Every leg's amount, fee, total (what the balance moved by) and running balance are the oracle's.
        const running = new Map(opening)
        for (const m of st.movements) {
          const legs = s.records[Number(m.id.slice(1))]!.legs
          expect(m.legs).toEqual(
            legs.map((l) => {
              const balance = (running.get(l.asset) ?? 0n) + effect(l)
              running.set(l.asset, balance)
              const moved = effect(l)
              return { asset: l.asset, direction: l.credit ? "CREDIT" : "DEBIT", amount: units(l.asset, l.amount), fee: units(l.asset, l.fee), total: units(l.asset, moved < 0n ? -moved : moved), balance: units(l.asset, balance) }
            }),
          )
        }
      }),
      { numRuns: 300 },
    )
  })

  it("a balance moved without a record is that amount's difference on that asset, in the window of the observations around it, and nothing else", () => {
    fc.assert(
      fc.property(
        scenarioArb,
        fc.constantFrom(...ASSETS),
        fc.bigInt({ min: -(10n ** 12n), max: 10n ** 12n }).filter((n) => n !== 0n),
        fc.integer({ min: 1, max: TO - FROM - 1 }),
        (s, asset, amount, offset) => {
          const silent = { asset, amount, at: FROM + offset }
          const times = [FROM, ...s.between, TO + s.closingDelay].sort((a, b) => a - b)
          const anchors = times.map((t) => anchor(t, oracleAt(s.start, s.records, t, silent)))
          const st = buildStatement({ profileId: "p", from: new Date(FROM), to: new Date(TO), records: toRecords(s.records), anchors, openingObserved: true, closingObserved: true })
          expect(st.tie_out).toBe("difference")
          expect(st.unexplained).toHaveLength(1)
          const u = st.unexplained[0]!
          expect(u.asset).toBe(asset)
          expect(u.amount).toBe(units(asset, amount))
          expect(Date.parse(u.from)).toBeLessThanOrEqual(silent.at)
          expect(Date.parse(u.to)).toBeGreaterThan(silent.at)
          expect(times.some((t) => t > Date.parse(u.from) && t < Date.parse(u.to))).toBe(false)
          for (const a of st.assets) {
            expect(a.tie_out).toBe(a.asset === asset ? "difference" : "ties_out")
            if (a.asset === asset) expect(a.difference).toBe(units(asset, amount))
          }
        },
      ),
      { numRuns: 300 },
    )
  })

  it("a record moved exactly at the period's start is in it, one exactly at its end is not, and one exactly at a snapshot's time is after that snapshot", () => {
    const start = { USD: 100000n }
    const credit = (at: number, amount: bigint): GenRecord => ({ at, legs: [{ asset: "USD", credit: true, amount, fee: 0n }] })
    const records = [credit(FROM - 1, 1n), credit(FROM, 200n), credit(FROM + 5 * HOUR, 3000n), credit(TO - 1, 40000n), credit(TO, 500000n)]
    const times = [FROM - HOUR, FROM + 5 * HOUR, TO + HOUR]
    const anchors = times.map((t) => anchor(t, oracleAt(start, records, t)))
    const st = buildStatement({ profileId: "p", from: new Date(FROM), to: new Date(TO), records: toRecords(records), anchors, openingObserved: true, closingObserved: true })
    expect(st.movements.map((m) => m.at)).toEqual([new Date(FROM).toISOString(), new Date(FROM + 5 * HOUR).toISOString(), new Date(TO - 1).toISOString()])
    expect(st.assets).toEqual([
      { asset: "USD", opening: units("USD", 100001n), credits: units("USD", 43200n), debits: "0.00", fees: "0.00", closing: units("USD", 143201n), difference: "0.00", tie_out: "ties_out" },
    ])
    expect(st.unexplained).toEqual([])
    expect(st.movements.at(-1)!.legs[0]!.balance).toBe(units("USD", 143201n))
  })

  it("claims no tie-out where an end is only reconstructed, and still says what the observations cannot explain", () => {
    const usd = (v: string) => new Map([["USD", toDecimal(v)]])
    const records = toRecords([{ at: FROM + 10 * HOUR, legs: [{ asset: "USD", credit: true, amount: 10000n, fee: 0n }] }])
    const st = buildStatement({
      profileId: "p",
      from: new Date(FROM),
      to: new Date(TO),
      records,
      anchors: [
        { at: new Date(FROM + 9 * HOUR), source: "snapshot", cutoff: null, balances: usd("50.00") },
        { at: new Date(FROM + 11 * HOUR), source: "snapshot", cutoff: null, balances: usd("153.50") },
      ],
      openingObserved: false,
      closingObserved: false,
    })
    expect(st.tie_out).toBe("not_claimed")
    expect(st.opening_basis).toBe("reconstructed")
    expect(st.assets).toEqual([
      { asset: "USD", opening: "50.00", credits: "100.00", debits: "0.00", fees: "0.00", closing: "153.50", difference: "3.50", tie_out: "not_claimed" },
    ])
    expect(st.unexplained).toEqual([{ asset: "USD", amount: "3.50", from: "2026-11-20T09:00:00.000Z", to: "2026-11-20T11:00:00.000Z" }])
  })

  it("lists the records in flight at the cutoff, and counts a trade's volume and average price per market and side", () => {
    const base = { kind: "execution" as const, href: "/executions/x", refId: "ref", placedBy: "trader@example.com", open: false, status: "SETTLED" }
    const trade = (id: string, base_: string, quote: string, movedAt: number | null, open = false): SourceRecord => ({
      ...base,
      id,
      label: "Buy BTCUSD",
      open,
      status: open ? "CREATED" : "SETTLED",
      createdAt: new Date((movedAt ?? TO) - HOUR),
      movedAt: movedAt === null ? null : new Date(movedAt),
      legs: [
        { asset: "BTC", direction: "CREDIT", amount: toDecimal(base_), fee: toDecimal("0") },
        { asset: "USD", direction: "DEBIT", amount: toDecimal(quote), fee: toDecimal("0") },
      ],
      trade: { market: "BTCUSD", side: "BUY", base: toDecimal(base_), quote: toDecimal(quote), baseAsset: "BTC", quoteAsset: "USD" },
    })
    const st = buildStatement({
      profileId: "p",
      from: new Date(FROM),
      to: new Date(TO),
      records: [trade("a", "0.10000000", "9000.00", FROM + HOUR), trade("b", "0.30000000", "30000.00", FROM + 2 * HOUR), trade("c", "1.00000000", "1.00", TO + 60_000), trade("d", "1.00000000", "1.00", null, true)],
      anchors: [{ at: new Date(TO + 2 * HOUR), source: "now", cutoff: null, balances: new Map([["USD", toDecimal("100000.00")], ["BTC", toDecimal("2.40000000")]]) }],
      openingObserved: false,
      closingObserved: false,
    })
    expect(st.markets).toEqual([
      { market: "BTCUSD", side: "BUY", count: 2, base_asset: "BTC", quote_asset: "USD", base_volume: "0.40000000", quote_volume: "39000.00", vwap: "97500" },
    ])
    expect(st.in_flight.map((r) => [r.id, r.moved_at])).toEqual([
      ["d", null],
      ["c", new Date(TO + 60_000).toISOString()],
    ])
    expect(st.movements.map((m) => [m.id, m.placed_by, m.legs.map((l) => `${l.asset} ${l.balance}`)])).toEqual([
      ["a", "trader@example.com", ["BTC 1.10000000", "USD 130001.00"]],
      ["b", "trader@example.com", ["BTC 1.40000000", "USD 100001.00"]],
    ])
  })

  it("one amount shared by legs of assets with different decimals (a conversion's) is written at each asset's decimals; a fee makes the total differ from the amount", () => {
    const amount = toDecimal("1234567890123456789.5")
    const record: SourceRecord = {
      id: "c",
      kind: "conversion",
      label: "Conversion",
      href: "/conversions/c",
      refId: null,
      placedBy: null,
      status: "SETTLED",
      createdAt: new Date(FROM),
      movedAt: new Date(FROM + HOUR),
      open: false,
      legs: [
        { asset: "USD", direction: "DEBIT", amount, fee: toDecimal("0.01") },
        { asset: "BTC", direction: "CREDIT", amount, fee: toDecimal("0.00000001") },
        { asset: "ETH", direction: "CREDIT", amount, fee: toDecimal("0") },
      ],
    }
    const st = buildStatement({ profileId: "p", from: new Date(FROM), to: new Date(TO), records: [record], anchors: [], openingObserved: false, closingObserved: false })
    expect(st.movements[0]!.legs.map((l) => [l.asset, l.amount, l.fee, l.total, l.balance])).toEqual([
      ["USD", "1234567890123456789.50", "0.01", "1234567890123456789.51", "-1234567890123456789.51"],
      ["BTC", "1234567890123456789.50000000", "0.00000001", "1234567890123456789.49999999", "1234567890123456789.49999999"],
      ["ETH", "1234567890123456789.50000000", "0.00000000", "1234567890123456789.50000000", "1234567890123456789.50000000"],
    ])
  })

  it("no JS number on the money path: the model's source parses nothing as a float", () => {
    for (const file of ["model.ts", "types.ts"]) {
      const source = readFileSync(path.join(__dirname, file), "utf8")
      expect(source).not.toMatch(/parseFloat|parseInt|Number\(|\.toNumber\(|Math\.|\* 100\b/)
    }
  })
})
