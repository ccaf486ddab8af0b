import "server-only"
import { createHash } from "node:crypto"
import { and, asc, eq, gte, lt } from "drizzle-orm"
import type { Db } from "@/lib/db/client"
import {
  type SandboxTransferRow,
  sandboxBalances,
  sandboxConversions,
  sandboxDeposits,
  sandboxExecutions,
  sandboxOrchestrations,
  sandboxProfiles,
  sandboxSettings,
  sandboxTransfers,
} from "@/lib/db/schema"
import { CRYPTO_DECIMALS, Decimal, FIAT_DECIMALS, executionAmounts, roundDown, toDecimal } from "@/lib/money"
import { assetAmount, timestamp } from "@/lib/sandbox/format"
import { ZERO_UUID } from "@/lib/sandbox/conversions"
import { genericProblem } from "@/lib/sandbox/problems"
import { ASSET_PRICING, SANDBOX_MARKETS, USD_REFERENCE_RATES, historyDeviation, marketAssets, marketPrices } from "@/lib/sandbox/pricing"
import { unitDraw } from "@/lib/sandbox/random"
import { HISTORY_DAYS, type HistoryRecord, type SandboxHistoryAnswer } from "@/lib/schemas/sandbox-history"
import { SANDBOX_ASSETS } from "@/lib/schemas/sandbox-tools"

/**
 * "Generate a past week": the 7 UTC days before today's cutoff filled with the records a
 * desk makes (settled quote executions in several markets, stablecoin conversions,
 * orchestrations from profile to profile, wire deposits), written to the sandbox's own
 * tables as its create and settle paths write them, and every profile's balances at each
 * cutoff, for the console's snapshots.
 *
 * The balances now are not touched: the week is worked backwards from the balances at
 * today's cutoff (now's, less what records moved since), each record's balance moves taken
 * off in turn, so the week ends exactly where the books stand and no balance is ever below
 * zero on the way. Every amount is a Decimal; draws (hashes of the seed, the week and the
 * record's place) only choose sizes as whole numbers before any arithmetic.
 *
 * Refused (409, `meta.reason` "history_exists") when the sandbox holds any record created
 * before today's cutoff: a week is generated once, on a sandbox with no past, so a second
 * run (or a run on a sandbox with a real past) changes nothing.
 *
 * No events are written for the past records: the service's events are what happens now,
 * and a week of them would flood the event reader and the webhooks.
 */

const DAY_MS = 86_400_000
const ZERO = toDecimal("0")
/** Records are placed during the desk's hours: 07:00 to 19:00 UTC. */
const OPEN_MS = 7 * 3_600_000
const HOURS_MS = 12 * 3_600_000
const MARKETS = ["BTCUSD", "ETHUSD", "BTCEUR", "ETHEUR", "PAXGUSD", "LTCUSD", "LINKUSD", "BTCSGD", "SOLUSD"].filter((m) => SANDBOX_MARKETS.includes(m))
const PAIRS: readonly (readonly [string, string])[] = [
  ["USD", "USDP"],
  ["USDP", "USD"],
  ["USD", "PYUSD"],
  ["PYUSD", "USD"],
  ["USD", "USDG"],
]
const STABLE_PAIRS = PAIRS.filter(([a, b]) => SANDBOX_ASSETS.includes(a) && SANDBOX_ASSETS.includes(b))
const DEPOSIT_ASSETS = ["USD", "USD", "EUR", "SGD"].filter((a) => SANDBOX_ASSETS.includes(a))

export interface HistoryDeps {
  db: Db
  now: () => Date
  maxExecutionUsd: number
  maxConversionUsd: number
}

type Balances = Map<string, Map<string, Decimal>>

interface Effect {
  profileId: string
  asset: string
  /** Signed: what the record added to the balance. */
  amount: Decimal
}

/** A UUID (version 4 layout) from a hash: the same seed, week and place give the same id. */
function hashedUuid(...parts: readonly (string | number)[]): string {
  const h = createHash("sha256").update(parts.join("\u001f")).digest("hex")
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16)
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`
}

/** A whole number in [min, max]. */
function wholeBetween(draw: number, min: number, max: number): Decimal {
  return toDecimal(String(min + Math.floor(draw * (max - min + 1))))
}

function get(b: Balances, profileId: string, asset: string): Decimal {
  return b.get(profileId)?.get(asset) ?? ZERO
}

/** Whether taking `effects` off `b` (going back in time) leaves every balance they touch at zero or more. */
function feasible(b: Balances, effects: readonly Effect[]): boolean {
  const after = new Map<string, Decimal>()
  for (const e of effects) {
    const key = `${e.profileId}|${e.asset}`
    after.set(key, (after.get(key) ?? get(b, e.profileId, e.asset)).minus(e.amount))
  }
  return [...after.values()].every((v) => !v.isNegative())
}

function takeOff(b: Balances, effects: readonly Effect[]): void {
  for (const e of effects) {
    const row = b.get(e.profileId) ?? new Map<string, Decimal>()
    row.set(e.asset, (row.get(e.asset) ?? ZERO).minus(e.amount))
    b.set(e.profileId, row)
  }
}

function snapshotOf(b: Balances, profileIds: readonly string[]): Record<string, { asset: string; available: string; trading: string }[]> {
  return Object.fromEntries(
    profileIds.map((id) => [id, SANDBOX_ASSETS.map((asset) => ({ asset, available: assetAmount(asset, get(b, id, asset)), trading: assetAmount(asset, ZERO) }))]),
  )
}

/** The USD mids of every asset at second `s` of the walk's history for `seed` (the charts' past). */
function midsAt(s: number, seed: number): Map<string, Decimal> {
  return new Map(
    Object.entries(ASSET_PRICING).map(([asset, p]) => [asset, toDecimal(p.refUsd).mul(toDecimal(Math.exp(historyDeviation(asset, s, seed)).toFixed(15)))]),
  )
}

type Planned =
  | { kind: "execution"; record: HistoryRecord & { kind: "execution" }; effects: Effect[] }
  | { kind: "conversion"; record: HistoryRecord & { kind: "conversion" }; effects: Effect[] }
  | { kind: "orchestration"; record: HistoryRecord & { kind: "orchestration" }; debitId: string; creditId: string; effects: Effect[] }
  | { kind: "deposit"; id: string; profileId: string; asset: string; amount: string; createdAt: Date; settledAt: Date; effects: Effect[] }

/** Balances now (available + trading) less what settled records moved since `since`: the balances at `since`. */
async function balancesAt(tx: Db, since: Date): Promise<Balances> {
  const b: Balances = new Map()
  const add = (profileId: string, asset: string, amount: Decimal) => {
    const row = b.get(profileId) ?? new Map<string, Decimal>()
    row.set(asset, (row.get(asset) ?? ZERO).plus(amount))
    b.set(profileId, row)
  }
  for (const r of await tx.select().from(sandboxBalances)) add(r.profileId, r.asset, toDecimal(r.available).plus(toDecimal(r.trading)))
  const e = sandboxExecutions
  for (const r of await tx.select().from(e).where(and(eq(e.status, "SETTLED"), gte(e.settledAt, since)))) {
    const buy = r.side === "BUY"
    const receiver = r.recipientProfileId ?? r.profileId
    add(r.profileId, buy ? r.quoteAsset : r.baseAsset, toDecimal(buy ? r.quoteAmount : r.baseAmount))
    add(receiver, buy ? r.baseAsset : r.quoteAsset, toDecimal(buy ? r.baseAmount : r.quoteAmount).neg())
  }
  const c = sandboxConversions
  for (const r of await tx.select().from(c).where(and(eq(c.status, "SETTLED"), gte(c.settledAt, since)))) {
    add(r.profileId, r.sourceAsset, toDecimal(r.amount))
    add(r.recipientProfileId ?? r.profileId, r.targetAsset, toDecimal(r.amount).neg())
  }
  const t = sandboxTransfers
  for (const r of await tx.select().from(t).where(and(eq(t.status, "COMPLETED"), gte(t.updatedAt, since)))) {
    const fee = toDecimal(r.fee)
    add(r.profileId, r.asset, r.direction === "CREDIT" ? toDecimal(r.amount).minus(fee).neg() : toDecimal(r.amount).plus(fee))
  }
  return b
}

/** Whether the sandbox holds any record created before `before`. */
async function hasPast(tx: Db, before: Date): Promise<boolean> {
  for (const table of [sandboxExecutions, sandboxConversions, sandboxOrchestrations, sandboxTransfers]) {
    const [row] = await tx.select({ id: table.id }).from(table).where(lt(table.createdAt, before)).limit(1)
    if (row) return true
  }
  return false
}

export async function generateHistory(deps: HistoryDeps, clientId: string, input: { seed: number; days?: number | undefined; perDay?: number | undefined }): Promise<SandboxHistoryAnswer> {
  const { seed } = input
  const days = input.days ?? HISTORY_DAYS
  const to = new Date(Math.floor(deps.now().getTime() / DAY_MS) * DAY_MS)
  const from = new Date(to.getTime() - days * DAY_MS)
  const week = to.toISOString().slice(0, 10)
  const draw = (...parts: readonly (string | number)[]) => unitDraw("sandbox-history", seed, week, ...parts)
  const id = (...parts: readonly (string | number)[]) => hashedUuid("sandbox-history", seed, week, ...parts)

  return deps.db.transaction(async (tx) => {
    // One generation at a time: a second one waits here, then finds the first one's records.
    await tx.select({ id: sandboxSettings.id }).from(sandboxSettings).where(eq(sandboxSettings.id, 1)).for("update")
    if (await hasPast(tx, to)) {
      throw genericProblem(409, `the sandbox already has records before ${timestamp(to)}: a past week is generated only on a sandbox with no past, once`, {
        reason: "history_exists",
      })
    }
    const profiles = (await tx.select({ id: sandboxProfiles.id }).from(sandboxProfiles).orderBy(asc(sandboxProfiles.createdAt), asc(sandboxProfiles.nickname))).map((p) => p.id)
    if (profiles.length === 0) throw genericProblem(409, "the sandbox has no profiles to give a past", { reason: "no_profiles" })

    const balances = await balancesAt(tx, to)
    const cutoffs: SandboxHistoryAnswer["cutoffs"] = [{ cutoff: timestamp(to), balances: snapshotOf(balances, profiles) }]
    const planned: Planned[] = []
    // The first profile (the treasury) does most of the trading.
    const pickProfile = (d: number) => profiles[d < 0.55 ? 0 : Math.min(profiles.length - 1, 1 + Math.floor(((d - 0.55) / 0.45) * (profiles.length - 1)))]!

    for (let day = days - 1; day >= 0; day--) {
      const dayStart = from.getTime() + day * DAY_MS
      const n = input.perDay ?? 10 + Math.floor(draw(day, "count") * 9)
      // Each record is placed and settled inside its own slot of the desk's hours, so no two overlap.
      const slot = Math.floor(HOURS_MS / n)
      for (let i = n - 1; i >= 0; i--) {
        const at = new Date(dayStart + OPEN_MS + i * slot + Math.floor(draw(day, i, "at") * (slot / 2)))
        const settledAt = new Date(at.getTime() + 1 + Math.floor(draw(day, i, "settle") * Math.min(30_000, slot / 3)))
        const kind = draw(day, i, "kind")
        const profileId = pickProfile(draw(day, i, "profile"))
        const small = profileId === profiles[0] ? 1 : 4
        const base = { profile_id: profileId, created_at: timestamp(at), settled_at: timestamp(settledAt) }
        let plan: Planned | null = null

        if (kind < 0.6 && MARKETS.length > 0) {
          const market = MARKETS[Math.floor(draw(day, i, "market") * MARKETS.length)]!
          const { base: baseAsset, quote: quoteAsset } = marketAssets(market)
          const side = draw(day, i, "side") < 0.55 ? "BUY" : "SELL"
          const prices = marketPrices(market, midsAt(Math.floor(at.getTime() / 1000), seed))
          const price = side === "BUY" ? prices.buy : prices.sell
          const usd = wholeBetween(draw(day, i, "size"), 2_000, Math.min(deps.maxExecutionUsd, 180_000)).div(small)
          let baseAmount = roundDown(usd.div(toDecimal(USD_REFERENCE_RATES[quoteAsset] ?? "1")).div(price), CRYPTO_DECIMALS)
          for (let tries = 0; tries < 4 && !baseAmount.isZero(); tries++) {
            const amounts = executionAmounts({ side, price: price.toFixed(), base_amount: baseAmount.toFixed() })
            const b = toDecimal(amounts.base_amount)
            const q = toDecimal(amounts.quote_amount)
            const effects: Effect[] =
              side === "BUY"
                ? [
                    { profileId, asset: quoteAsset, amount: q.neg() },
                    { profileId, asset: baseAsset, amount: b },
                  ]
                : [
                    { profileId, asset: baseAsset, amount: b.neg() },
                    { profileId, asset: quoteAsset, amount: q },
                  ]
            if (!q.isZero() && feasible(balances, effects)) {
              plan = {
                kind: "execution",
                effects,
                record: {
                  kind: "execution",
                  id: id(day, i, "execution"),
                  ref_id: id(day, i, "ref"),
                  quote_id: id(day, i, "quote"),
                  market,
                  side,
                  price: price.toFixed(),
                  base_amount: amounts.base_amount,
                  quote_amount: amounts.quote_amount,
                  ...base,
                },
              }
              break
            }
            baseAmount = roundDown(baseAmount.div(4), CRYPTO_DECIMALS)
          }
        } else if (kind < 0.75 && STABLE_PAIRS.length > 0) {
          const [source, target] = STABLE_PAIRS[Math.floor(draw(day, i, "pair") * STABLE_PAIRS.length)]!
          const amount = wholeBetween(draw(day, i, "size"), 500, Math.min(deps.maxConversionUsd, 120_000)).div(small).toDecimalPlaces(FIAT_DECIMALS, Decimal.ROUND_DOWN)
          const effects: Effect[] = [
            { profileId, asset: source, amount: amount.neg() },
            { profileId, asset: target, amount },
          ]
          if (!amount.isZero() && feasible(balances, effects)) {
            plan = {
              kind: "conversion",
              effects,
              record: { kind: "conversion", id: id(day, i, "conversion"), ref_id: id(day, i, "ref"), amount: amount.toFixed(FIAT_DECIMALS), source_asset: source, target_asset: target, ...base },
            }
          }
        } else if (kind < 0.87 && profiles.length > 1 && STABLE_PAIRS.length > 0) {
          const others = profiles.filter((p) => p !== profileId)
          const recipient = others[Math.floor(draw(day, i, "recipient") * others.length)]!
          const [source, target] = STABLE_PAIRS[Math.floor(draw(day, i, "pair") * STABLE_PAIRS.length)]!
          const amount = wholeBetween(draw(day, i, "size"), 1_000, Math.min(deps.maxConversionUsd, 60_000)).div(small).toDecimalPlaces(FIAT_DECIMALS, Decimal.ROUND_DOWN)
          const effects: Effect[] = [
            { profileId, asset: source, amount: amount.neg() },
            { profileId: recipient, asset: target, amount },
          ]
          if (!amount.isZero() && feasible(balances, effects)) {
            plan = {
              kind: "orchestration",
              effects,
              debitId: id(day, i, "debit"),
              creditId: id(day, i, "credit"),
              record: {
                kind: "orchestration",
                id: id(day, i, "orchestration"),
                ref_id: id(day, i, "ref"),
                recipient_profile_id: recipient,
                amount: amount.toFixed(FIAT_DECIMALS),
                source_asset: source,
                target_asset: target,
                ...base,
              },
            }
          }
        } else if (DEPOSIT_ASSETS.length > 0) {
          const asset = DEPOSIT_ASSETS[Math.floor(draw(day, i, "asset") * DEPOSIT_ASSETS.length)]!
          const amount = wholeBetween(draw(day, i, "size"), 5_000, 250_000).div(small).toDecimalPlaces(FIAT_DECIMALS, Decimal.ROUND_DOWN)
          const effects: Effect[] = [{ profileId, asset, amount }]
          if (!amount.isZero() && feasible(balances, effects)) {
            plan = { kind: "deposit", id: id(day, i, "deposit"), profileId, asset, amount: amount.toFixed(FIAT_DECIMALS), createdAt: at, settledAt, effects }
          }
        }
        if (!plan) continue
        takeOff(balances, plan.effects)
        planned.push(plan)
      }
      cutoffs.push({ cutoff: timestamp(new Date(dayStart)), balances: snapshotOf(balances, profiles) })
    }
    planned.reverse()
    cutoffs.reverse()

    await writeRecords(tx, clientId, planned)
    const records = planned.flatMap((p) => (p.kind === "deposit" ? [] : [p.record]))
    const count = (kind: Planned["kind"]) => planned.filter((p) => p.kind === kind).length
    return {
      seed,
      from: timestamp(from),
      to: timestamp(to),
      counts: { executions: count("execution"), conversions: count("conversion"), orchestrations: count("orchestration"), deposits: count("deposit") },
      records,
      cutoffs,
    }
  })
}

/** The rows the sandbox's create and settle paths leave for each record, settled. */
async function writeRecords(tx: Db, clientId: string, planned: readonly Planned[]): Promise<void> {
  const executions: (typeof sandboxExecutions.$inferInsert)[] = []
  const conversions: (typeof sandboxConversions.$inferInsert)[] = []
  const orchestrations: (typeof sandboxOrchestrations.$inferInsert)[] = []
  const deposits: (typeof sandboxDeposits.$inferInsert)[] = []
  const transfers: SandboxTransferRow[] = []
  const transfer = (row: Omit<SandboxTransferRow, "fee" | "cryptoNetwork" | "cryptoAddress" | "cryptoTxHash" | "memo" | "groupId" | "orchestrationId" | "refId"> & Partial<SandboxTransferRow>): SandboxTransferRow => ({
    fee: "0",
    cryptoNetwork: null,
    cryptoAddress: null,
    cryptoTxHash: null,
    memo: null,
    groupId: null,
    orchestrationId: null,
    refId: null,
    ...row,
  })
  for (const p of planned) {
    if (p.kind === "execution") {
      const r = p.record
      const { base, quote } = marketAssets(r.market)
      executions.push({
        id: r.id,
        profileId: r.profile_id,
        quoteId: r.quote_id,
        refId: r.ref_id,
        status: "SETTLED",
        market: r.market,
        side: r.side,
        price: r.price,
        baseAmount: r.base_amount,
        baseAsset: base,
        quoteAmount: r.quote_amount,
        quoteAsset: quote,
        metadata: null,
        identityId: null,
        accountId: null,
        recipientProfileId: null,
        clientId,
        createdAt: new Date(r.created_at),
        settledAt: new Date(r.settled_at),
      })
    } else if (p.kind === "conversion") {
      const r = p.record
      conversions.push({
        id: r.id,
        clientId,
        profileId: r.profile_id,
        amount: r.amount,
        sourceAsset: r.source_asset,
        targetAsset: r.target_asset,
        status: "SETTLED",
        refId: r.ref_id,
        identityId: ZERO_UUID,
        accountId: ZERO_UUID,
        metadata: null,
        recipientProfileId: null,
        createdAt: new Date(r.created_at),
        updatedAt: new Date(r.settled_at),
        settledAt: new Date(r.settled_at),
        cancelledAt: null,
      })
    } else if (p.kind === "orchestration") {
      const r = p.record
      const createdAt = new Date(r.created_at)
      const settledAt = new Date(r.settled_at)
      orchestrations.push({
        id: r.id,
        clientId,
        sourceProfileId: r.profile_id,
        destinationProfileId: r.recipient_profile_id,
        sourceAmount: r.amount,
        sourceAsset: r.source_asset,
        destinationAsset: r.target_asset,
        status: "COMPLETED",
        refId: r.ref_id,
        identityId: ZERO_UUID,
        accountId: ZERO_UUID,
        metadata: null,
        sourceTransferId: p.debitId,
        destinationTransferId: p.creditId,
        failDetail: null,
        orchestrationRuleId: null,
        processingAt: createdAt,
        createdAt,
        updatedAt: settledAt,
      })
      const legs = { clientId, status: "COMPLETED" as const, amount: r.amount, refId: r.ref_id, groupId: r.id, orchestrationId: r.id }
      transfers.push(
        transfer({ ...legs, id: p.debitId, profileId: r.profile_id, type: "INTERNAL_TRANSFER_DEBIT", direction: "DEBIT", asset: r.source_asset, createdAt, updatedAt: settledAt }),
        transfer({ ...legs, id: p.creditId, profileId: r.recipient_profile_id, type: "INTERNAL_TRANSFER_CREDIT", direction: "CREDIT", asset: r.target_asset, createdAt: settledAt, updatedAt: settledAt }),
      )
    } else {
      deposits.push({ id: p.id, clientId, profileId: p.profileId, asset: p.asset, amount: p.amount, cryptoNetwork: null, cryptoAddress: null, createdAt: p.createdAt })
      transfers.push(
        transfer({
          id: p.id,
          clientId,
          profileId: p.profileId,
          type: "WIRE_DEPOSIT",
          direction: "CREDIT",
          status: "COMPLETED",
          asset: p.asset,
          amount: p.amount,
          createdAt: p.createdAt,
          updatedAt: p.settledAt,
        }),
      )
    }
  }
  const CHUNK = 500
  const insertAll = async <T>(rows: T[], insert: (chunk: T[]) => Promise<unknown>) => {
    for (let i = 0; i < rows.length; i += CHUNK) await insert(rows.slice(i, i + CHUNK))
  }
  await insertAll(executions, (rows) => tx.insert(sandboxExecutions).values(rows))
  await insertAll(conversions, (rows) => tx.insert(sandboxConversions).values(rows))
  await insertAll(orchestrations, (rows) => tx.insert(sandboxOrchestrations).values(rows))
  await insertAll(deposits, (rows) => tx.insert(sandboxDeposits).values(rows))
  await insertAll(transfers, (rows) => tx.insert(sandboxTransfers).values(rows))
}
