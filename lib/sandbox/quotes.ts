import "server-only"
import { randomUUID } from "node:crypto"
import { and, eq, inArray, lt } from "drizzle-orm"
import type { Db } from "@/lib/db/client"
import { type SandboxQuoteRow, sandboxPrices, sandboxQuotes } from "@/lib/db/schema"
import { type Decimal, toDecimal } from "@/lib/money"
import { isUuid } from "@/lib/sandbox/cursor"
import { marketAssets, marketMid, marketPrices, referenceUsd, stepMid } from "@/lib/sandbox/pricing"

/** Quotes stay findable this long after they expire (then executing one is a 404). */
export const QUOTE_RETENTION_MS = 60 * 60 * 1000
const PRUNE_EVERY_MS = 60 * 1000

/**
 * Held quotes. One quote per market, side and whole second: the first request in a
 * second creates it (a unique index settles races between requests and processes), the
 * rest of that second get the same one. Each holds for the `quote_ttl_ms` setting.
 */
export class QuoteBook {
  private readonly bySlot = new Map<string, { slot: number; rows: SandboxQuoteRow[] }>()
  private lastPruneMs = 0

  constructor(
    private readonly db: Db,
    private readonly now: () => Date,
    private readonly settings: () => Promise<{ seed: number; quoteTtlMs: number }>,
  ) {}

  /** The current quotes (BUY and SELL) of each market, in the order asked. */
  async current(markets: readonly string[]): Promise<SandboxQuoteRow[]> {
    const now = this.now()
    const slot = Math.floor(now.getTime() / 1000)
    const missing = markets.filter((m) => this.bySlot.get(m)?.slot !== slot)
    if (missing.length > 0) await this.create(missing, slot, now)
    await this.prune(now)
    return markets.flatMap((m) => this.bySlot.get(m)?.rows ?? [])
  }

  async find(id: string): Promise<SandboxQuoteRow | null> {
    if (!isUuid(id)) return null
    const [row] = await this.db.select().from(sandboxQuotes).where(eq(sandboxQuotes.id, id.toLowerCase()))
    return row ?? null
  }

  /** The market's mid now (the walk's latest state), for the Rejected rule. */
  async currentMid(market: string): Promise<Decimal> {
    const { base, quote } = marketAssets(market)
    const assets = quote === "USD" ? [base] : [base, quote]
    const mids = await this.mids(assets, Math.floor(this.now().getTime() / 1000), false)
    return marketMid(market, mids)
  }

  /** Moves an asset's mid by `percent` (admin market moves); quotes already held keep their price. */
  async move(asset: string, percent: Decimal): Promise<{ asset: string; mid_usd: string }> {
    const slot = Math.floor(this.now().getTime() / 1000)
    const mids = await this.mids([asset], slot, true)
    const before = mids.get(asset) ?? referenceUsd(asset)
    const after = before.mul(percent.div(100).plus(1)).toSignificantDigits(12)
    await this.db
      .update(sandboxPrices)
      .set({ midUsd: after.toFixed(), updatedAt: this.now() })
      .where(eq(sandboxPrices.asset, asset))
    // Quotes of this second were priced before the move: the next second's are new.
    this.bySlot.clear()
    return { asset, mid_usd: after.toString() }
  }

  private async create(markets: readonly string[], slot: number, now: Date): Promise<void> {
    const assets = new Set<string>()
    for (const market of markets) {
      const { base, quote } = marketAssets(market)
      assets.add(base)
      if (quote !== "USD") assets.add(quote)
    }
    const mids = await this.mids([...assets], slot, true)
    const expiresAt = new Date(now.getTime() + (await this.settings()).quoteTtlMs)
    const values = markets.flatMap((market) => {
      const { base, quote } = marketAssets(market)
      const prices = marketPrices(market, mids)
      return (["BUY", "SELL"] as const).map((side) => ({
        id: randomUUID(),
        market,
        side,
        price: (side === "BUY" ? prices.buy : prices.sell).toFixed(),
        mid: prices.mid.toFixed(),
        baseAsset: base,
        quoteAsset: quote,
        slot,
        createdAt: now,
        expiresAt,
      }))
    })
    await this.db.insert(sandboxQuotes).values(values).onConflictDoNothing()
    const rows = await this.db
      .select()
      .from(sandboxQuotes)
      .where(and(eq(sandboxQuotes.slot, slot), inArray(sandboxQuotes.market, [...markets])))
    for (const market of markets) {
      const buy = rows.find((r) => r.market === market && r.side === "BUY")
      const sell = rows.find((r) => r.market === market && r.side === "SELL")
      if (buy && sell) this.bySlot.set(market, { slot, rows: [buy, sell] })
    }
  }

  /**
   * USD mids of `assets` at `slot`. With `advance`, the walk is stepped to `slot` first;
   * two processes stepping the same state reach the same mid, and a conditional update
   * keeps the first one's result.
   */
  private async mids(assets: readonly string[], slot: number, advance: boolean): Promise<Map<string, Decimal>> {
    const walkable = assets.filter((a) => a !== "USD")
    const mids = new Map<string, Decimal>([["USD", toDecimal("1")]])
    if (walkable.length === 0) return mids
    let rows = await this.db.select().from(sandboxPrices).where(inArray(sandboxPrices.asset, walkable))
    const known = new Set(rows.map((r) => r.asset))
    const fresh = walkable.filter((a) => !known.has(a))
    if (fresh.length > 0) {
      await this.db
        .insert(sandboxPrices)
        .values(fresh.map((asset) => ({ asset, midUsd: referenceUsd(asset).toFixed(), slot, updatedAt: this.now() })))
        .onConflictDoNothing()
    }
    if (advance) {
      const { seed } = await this.settings()
      for (const row of rows) {
        if (row.slot >= slot) continue
        const next = stepMid(row.asset, toDecimal(row.midUsd), row.slot, slot, seed)
        await this.db
          .update(sandboxPrices)
          .set({ midUsd: next.toFixed(), slot, updatedAt: this.now() })
          .where(and(eq(sandboxPrices.asset, row.asset), eq(sandboxPrices.slot, row.slot)))
      }
    }
    if (fresh.length > 0 || advance) {
      rows = await this.db.select().from(sandboxPrices).where(inArray(sandboxPrices.asset, walkable))
    }
    for (const row of rows) mids.set(row.asset, toDecimal(row.midUsd))
    return mids
  }

  private async prune(now: Date): Promise<void> {
    const nowMs = now.getTime()
    if (Math.abs(nowMs - this.lastPruneMs) < PRUNE_EVERY_MS) return
    this.lastPruneMs = nowMs
    await this.db.delete(sandboxQuotes).where(lt(sandboxQuotes.expiresAt, new Date(nowMs - QUOTE_RETENTION_MS)))
  }
}
