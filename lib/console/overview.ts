import "server-only"
import { and, count, gte, inArray, sql } from "drizzle-orm"
import type { Staff } from "@/lib/auth/roles"
import { roleAtLeast } from "@/lib/auth/roles"
import type { Db } from "@/lib/db/client"
import { consoleIntents } from "@/lib/db/schema"
import { createTtlCache, type MarketDataCache } from "@/lib/console/market-data"
import { type CreditEntry, latestCredits } from "@/lib/console/event-effects"
import { totalHistory } from "@/lib/console/overview-history"
import { CONVERSION_DECIMALS, formatAmount } from "@/lib/format"
import type { QuoteCache } from "@/lib/console/quote-cache"
import { type Decimal, toDecimal } from "@/lib/money"
import { FIAT_ASSETS, parseMarket } from "@/lib/schemas/assets"
import type { MarketPrice } from "@/lib/schemas/market-data"
import type { ActivityRow, FeedItem, Holding, Overview } from "@/lib/schemas/overview"
import type { Balance, Conversion, Profile, Quote, QuoteExecution } from "@/lib/schemas/records"
import type { UpstreamClient } from "@/lib/upstream"

const FEED_SIZE = 12
/** Records read per profile (executions) and in all (conversions) for the feed and today's activity. */
const LIST_LIMIT = 100

interface Book {
  profiles: { profile: Profile; balances: Balance[] }[]
  executions: QuoteExecution[]
  conversions: Conversion[]
}

/**
 * The overview's reads of the service (profiles, balances, the latest records), shared by
 * every open dashboard: at most one round of calls per `ttlMs` per instance.
 */
export function createOverviewSource(options: {
  upstream: Pick<UpstreamClient, "listProfiles" | "listBalances" | "listQuoteExecutions" | "listConversions">
  ttlMs?: number
  /** An overview asked for within this long is being watched (default 10 s). */
  watchedMs?: number
  now?: () => number
}) {
  const now = options.now ?? Date.now
  const cache = createTtlCache<Book>({ ttlMs: options.ttlMs ?? 2000, maxKeys: 1, now })
  const watchedMs = options.watchedMs ?? 10_000
  const { upstream } = options
  let askedAt = Number.NEGATIVE_INFINITY
  const load = async (): Promise<Book> => {
    const { items: profiles } = await upstream.listProfiles({ limit: 100 })
    const perProfile = await Promise.all(
      profiles.map(async (profile) => {
        const [balances, executions] = await Promise.all([
          upstream.listBalances(profile.id),
          upstream.listQuoteExecutions(profile.id, { limit: LIST_LIMIT, order: "DESC" }),
        ])
        return { profile, balances, executions: executions.items }
      }),
    )
    const conversions = await upstream.listConversions({ limit: LIST_LIMIT, order: "DESC" })
    return {
      profiles: perProfile.map(({ profile, balances }) => ({ profile, balances })),
      executions: perProfile.flatMap((p) => p.executions),
      conversions: conversions.items,
    }
  }
  return {
    /**
     * Balances moved (a deposit the event reader processed): the next read asks the service
     * again. While someone watches the overview (asked within `watchedMs`), the asking starts
     * now, so their next refresh finds it done or under way rather than starting it (the
     * deposit reaches their feed sooner); nobody watching, nothing is asked until someone is.
     */
    refresh(): void {
      cache.invalidate("book")
      if (now() - askedAt < watchedMs) void cache.get("book", load).catch(() => undefined)
    },
    async book(): Promise<{ book: Book; fetchedAt: number; stale: boolean }> {
      askedAt = now()
      const answer = await cache.get("book", load)
      return { book: answer.data, fetchedAt: answer.fetchedAt, stale: answer.stale }
    },
  }
}
export type OverviewSource = ReturnType<typeof createOverviewSource>

/** USD per unit of each asset the held quotes price: USD markets' mids, fiat through a crypto cross. */
export function usdPrices(quotes: readonly Quote[]): Map<string, Decimal> {
  const mids = new Map<string, Decimal>()
  const byMarket = new Map<string, { buy?: Decimal; sell?: Decimal }>()
  for (const q of quotes) {
    const sides = byMarket.get(q.market) ?? {}
    if (q.side === "BUY") sides.buy = toDecimal(q.price)
    else sides.sell = toDecimal(q.price)
    byMarket.set(q.market, sides)
  }
  for (const [market, { buy, sell }] of byMarket) if (buy && sell) mids.set(market, buy.plus(sell).div(2))
  const prices = new Map<string, Decimal>([["USD", toDecimal("1")]])
  for (const [market, mid] of mids) {
    const parsed = parseMarket(market)
    if (parsed?.quote === "USD") prices.set(parsed.base, mid)
  }
  for (const fiat of FIAT_ASSETS) {
    if (prices.has(fiat)) continue
    // EUR in USD = BTCUSD / BTCEUR, through any asset quoted in both.
    for (const [market, mid] of mids) {
      const parsed = parseMarket(market)
      const viaUsd = parsed && parsed.quote === fiat ? mids.get(`${parsed.base}USD`) : undefined
      if (viaUsd && !mid.isZero()) {
        prices.set(fiat, viaUsd.div(mid))
        break
      }
    }
  }
  return prices
}

function holding(asset: string, amount: Decimal, prices: ReadonlyMap<string, Decimal>): Holding {
  const price = prices.get(asset)
  return {
    asset,
    amount: amount.toString(),
    price_usd: price ? price.toSignificantDigits(12).toString() : null,
    value_usd: price ? price.mul(amount).toFixed(2) : null,
  }
}

const usd = (values: readonly (string | null)[]) => values.reduce((sum, v) => (v === null ? sum : sum.plus(toDecimal(v))), toDecimal("0"))

/** The overview: holdings valued at current mids (decimal.js throughout), changes, today's activity, the feed. */
export async function buildOverview(deps: {
  db: Db
  staff: Staff
  source: OverviewSource
  quotes: QuoteCache
  marketData: MarketDataCache
  now?: () => Date
}): Promise<Overview> {
  const now = deps.now?.() ?? new Date()
  const [{ book, stale: bookStale }, quoteSnapshot, priceList] = await Promise.all([
    deps.source.book(),
    deps.quotes.get(null),
    deps.marketData.prices().catch(() => null),
  ])
  const prices = usdPrices(quoteSnapshot.quotes)

  const totals = new Map<string, Decimal>()
  const profiles = book.profiles.map(({ profile, balances }) => {
    const holdings = balances
      .map((b) => ({ asset: b.asset, amount: toDecimal(b.available).plus(toDecimal(b.trading)) }))
      .filter((h) => !h.amount.isZero())
      .map((h) => {
        totals.set(h.asset, (totals.get(h.asset) ?? toDecimal("0")).plus(h.amount))
        return holding(h.asset, h.amount, prices)
      })
    return { id: profile.id, nickname: profile.nickname, total_usd: usd(holdings.map((h) => h.value_usd)).toFixed(2), holdings }
  })
  const total = usd(profiles.map((p) => p.total_usd))
  const allocation = [...totals]
    .map(([asset, amount]) => holding(asset, amount, prices))
    .sort((a, b) => toDecimal(b.value_usd ?? "0").cmp(toDecimal(a.value_usd ?? "0")))
    .map((h) => ({ ...h, share: h.value_usd === null || total.isZero() ? null : toDecimal(h.value_usd).div(total).mul(100).toFixed(1) }))

  const since = new Date(Math.floor(now.getTime() / 86_400_000) * 86_400_000)
  const names = new Map(book.profiles.map(({ profile }) => [profile.id, profile.nickname]))
  const [activity, history, credits] = await Promise.all([
    todaysActivity(deps.db, since, book, prices),
    totalHistory({ marketData: deps.marketData, holdings: totals, prices, total, now }),
    latestCredits(deps.db, FEED_SIZE),
  ])
  const feed = latestFeed(book, names, credits)
  const unresolved = roleAtLeast(deps.staff.role, "admin") ? await unresolvedIntents(deps.db) : null

  return {
    total_usd: total.toFixed(2),
    total_history: history,
    profiles,
    allocation,
    changes: (priceList?.items ?? []).map(change),
    activity: { since: since.toISOString(), ...activity },
    feed,
    unresolved_intents: unresolved,
    priced_at: new Date(quoteSnapshot.fetchedAt).toISOString(),
    stale: bookStale || quoteSnapshot.stale,
  }
}

function change(p: MarketPrice) {
  const current = toDecimal(p.current_price)
  const yesterday = toDecimal(p.yesterday_price)
  const pct = yesterday.isZero() ? toDecimal("0") : current.minus(yesterday).div(yesterday).mul(100)
  return {
    market: p.market,
    asset: parseMarket(p.market)?.base ?? p.market,
    current_price: p.current_price,
    yesterday_price: p.yesterday_price,
    change_percent: pct.toFixed(2),
  }
}

/**
 * Creates placed through the console since `since`, by status: the record's current status
 * when the service has it in the latest records, else the intent's own state (PENDING,
 * FAILED, UNKNOWN, or its status when placed). Notional in USD at current mids.
 */
async function todaysActivity(
  db: Db,
  since: Date,
  book: Book,
  prices: ReadonlyMap<string, Decimal>,
): Promise<{ executions: ActivityRow[]; conversions: ActivityRow[] }> {
  const intents = await db
    .select({
      operation: consoleIntents.operation,
      state: consoleIntents.state,
      recordId: consoleIntents.recordId,
      recordStatus: consoleIntents.recordStatus,
      sizeAmount: consoleIntents.sizeAmount,
      sizeCurrency: consoleIntents.sizeCurrency,
    })
    .from(consoleIntents)
    .where(and(gte(consoleIntents.createdAt, since), inArray(consoleIntents.operation, ["create_execution", "create_conversion"])))
  const executions = new Map(book.executions.map((e) => [e.id, e]))
  const conversions = new Map(book.conversions.map((c) => [c.id, c]))
  const rows = { executions: new Map<string, { count: number; notional: Decimal }>(), conversions: new Map<string, { count: number; notional: Decimal }>() }
  for (const intent of intents) {
    const isExecution = intent.operation === "create_execution"
    let status: string = intent.state === "SUCCEEDED" ? (intent.recordStatus ?? "SUCCEEDED") : intent.state
    let notional = toDecimal("0")
    if (intent.recordId) {
      if (isExecution) {
        const record = executions.get(intent.recordId)
        if (record) {
          status = record.status
          notional = toDecimal(record.quote_amount).mul(prices.get(record.quote_asset) ?? toDecimal("0"))
        }
      } else {
        const record = conversions.get(intent.recordId)
        if (record) {
          status = record.status
          // Stablecoins convert 1:1 against USD.
          notional = record.amount ? toDecimal(record.amount) : notional
        }
      }
    }
    // Not placed yet (waiting for approval, or its outcome unknown): the size the limits counted.
    if (notional.isZero() && intent.sizeAmount !== null && intent.sizeCurrency !== null) {
      notional = toDecimal(intent.sizeAmount).mul(prices.get(intent.sizeCurrency) ?? toDecimal("0"))
    }
    const table = isExecution ? rows.executions : rows.conversions
    const row = table.get(status) ?? { count: 0, notional: toDecimal("0") }
    table.set(status, { count: row.count + 1, notional: row.notional.plus(notional) })
  }
  const out = (m: Map<string, { count: number; notional: Decimal }>) =>
    [...m].sort(([a], [b]) => a.localeCompare(b)).map(([status, r]) => ({ status, count: r.count, notional_usd: r.notional.toFixed(2) }))
  return { executions: out(rows.executions), conversions: out(rows.conversions) }
}

/** "WIRE_DEPOSIT" → "Wire deposit". */
function transferWords(type: string): string {
  const words = type.toLowerCase().replace(/_/g, " ")
  return words.charAt(0).toUpperCase() + words.slice(1)
}

function latestFeed(book: Book, names: ReadonlyMap<string, string>, credits: readonly CreditEntry[] = []): FeedItem[] {
  const items: FeedItem[] = [
    ...credits.map((c) => ({
      kind: "deposit" as const,
      id: c.transferId,
      profile_id: c.profileId,
      profile_name: names.get(c.profileId) ?? c.profileId,
      status: "COMPLETED",
      summary: `${transferWords(c.type)} of ${formatAmount(c.amount, c.asset)} ${c.asset}`,
      created_at: c.createdAt.toISOString(),
    })),
    ...book.executions.map((e) => ({
      kind: "execution" as const,
      id: e.id,
      profile_id: e.profile_id,
      profile_name: names.get(e.profile_id) ?? e.profile_id,
      status: e.status,
      summary: `${e.side} ${formatAmount(e.base_amount, e.base_asset)} ${e.base_asset} for ${formatAmount(e.quote_amount, e.quote_asset)} ${e.quote_asset}`,
      created_at: e.created_at,
    })),
    ...book.conversions.map((c) => ({
      kind: "conversion" as const,
      id: c.id,
      profile_id: c.profile_id ?? "",
      profile_name: c.profile_id ? (names.get(c.profile_id) ?? c.profile_id) : "",
      status: c.status,
      summary: `${c.amount ? formatAmount(c.amount, c.source_asset, CONVERSION_DECIMALS) : "?"} ${c.source_asset ?? "?"} → ${c.target_asset ?? "?"}`,
      created_at: c.created_at ?? new Date(0).toISOString(),
    })),
  ]
  return items.sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at)).slice(0, FEED_SIZE)
}

async function unresolvedIntents(db: Db): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(consoleIntents)
    .where(sql`${consoleIntents.state} in ('PENDING', 'UNKNOWN')`)
  return row?.n ?? 0
}
