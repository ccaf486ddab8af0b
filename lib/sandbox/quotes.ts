import "server-only"
import { createHash, randomBytes } from "node:crypto"
import { and, eq, inArray, lt } from "drizzle-orm"
import type { Db } from "@/lib/db/client"
import { type SandboxQuoteRow, sandboxPrices, sandboxQuotes } from "@/lib/db/schema"
import { type Decimal, toDecimal } from "@/lib/money"
import { isUuid } from "@/lib/sandbox/cursor"
import { marketAssets, marketMid, marketPrices, referenceUsd, stepMid } from "@/lib/sandbox/pricing"

/**
 * Quote rows are kept this long after they expire. After that, executing one still answers
 * 403 Expired: its id says when it expired (see `newQuoteId`).
 */
export const QUOTE_RETENTION_MS = 60 * 60 * 1000
const PRUNE_EVERY_MS = 60 * 1000

/**
 * A new quote id that carries the quote's expiry: an RFC 9562 version 8 UUID whose first
 * 48 bits are `expires_at` in milliseconds (UUIDv7's layout, with the expiry for the
 * creation time), then 42 random bits, then 32 bits of a hash of the rest. A quote whose
 * row was pruned is still recognised as one of the sandbox's, so executing it answers 403
 * Expired with its exact `expired_at` however long after, and no other id is mistaken for one.
 */
export function newQuoteId(expiresAt: Date): string {
  const bytes = Buffer.alloc(16)
  bytes.writeUIntBE(expiresAt.getTime(), 0, 6)
  randomBytes(6).copy(bytes, 6)
  bytes[6] = (bytes[6]! & 0x0f) | 0x80 // version 8
  bytes[8] = (bytes[8]! & 0x3f) | 0x80 // RFC 9562 variant
  quoteIdCheck(bytes).copy(bytes, 12)
  const hex = bytes.toString("hex")
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

/** When the quote with this id expired or expires; null for an id `newQuoteId` did not make. */
export function expiryOfQuoteId(id: string): Date | null {
  if (!isUuid(id)) return null
  const bytes = Buffer.from(id.replaceAll("-", ""), "hex")
  if ((bytes[6]! >> 4) !== 8 || (bytes[8]! & 0xc0) !== 0x80) return null
  if (!quoteIdCheck(bytes).equals(bytes.subarray(12))) return null
  return new Date(bytes.readUIntBE(0, 6))
}

function quoteIdCheck(bytes: Buffer): Buffer {
  return createHash("sha256").update("sandbox quote id\u0000").update(bytes.subarray(0, 12)).digest().subarray(0, 4)
}

/**
 * How often a market and side get a new quote: once a second, as the service says, or once
 * per hold time when that is shorter (a test or demo setting), so a quote served is never
 * already expired.
 */
export function quoteWindowMs(quoteTtlMs: number): number {
  return Math.min(1000, quoteTtlMs)
}

/**
 * Held quotes. One quote per market, side and window (a whole second, see `quoteWindowMs`):
 * the first request in a window creates it (a unique index on the window's start, `slot`,
 * settles races between requests and processes), the rest of that window get the same one.
 * Each holds for the `quote_ttl_ms` setting.
 */
export class QuoteBook {
  private readonly bySlot = new Map<string, { slot: number; rows: SandboxQuoteRow[] }>()
  private lastPruneMs = 0

  constructor(
    private readonly db: Db,
    private readonly now: () => Date,
    private readonly settings: () => Promise<{ seed: number; quoteTtlMs: number }>,
  ) {}

  /** The current quotes (BUY and SELL) of each market, in the order asked; never an expired one. */
  async current(markets: readonly string[]): Promise<SandboxQuoteRow[]> {
    const now = this.now()
    const windowMs = quoteWindowMs((await this.settings()).quoteTtlMs)
    // The window's start in milliseconds.
    const slot = Math.floor(now.getTime() / windowMs) * windowMs
    const missing = markets.filter((m) => this.bySlot.get(m)?.slot !== slot)
    if (missing.length > 0) await this.create(missing, slot, now)
    await this.prune(now)
    // Only after a hold-time change within a window can a quote of this window have expired.
    return markets.flatMap((m) => this.bySlot.get(m)?.rows ?? []).filter((row) => row.expiresAt.getTime() > now.getTime())
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
    // The price walk steps once a second, whatever the quote window.
    const mids = await this.mids([...assets], Math.floor(now.getTime() / 1000), true)
    const expiresAt = new Date(now.getTime() + (await this.settings()).quoteTtlMs)
    const values = markets.flatMap((market) => {
      const { base, quote } = marketAssets(market)
      const prices = marketPrices(market, mids)
      return (["BUY", "SELL"] as const).map((side) => ({
        id: newQuoteId(expiresAt),
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
