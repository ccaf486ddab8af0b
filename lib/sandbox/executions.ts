import "server-only"
import { randomUUID } from "node:crypto"
import { type SQL, and, count, eq, gte, lte } from "drizzle-orm"
import type { Db } from "@/lib/db/client"
import { type SandboxExecutionRow, sandboxExecutions } from "@/lib/db/schema"
import { executionAmounts, toDecimal } from "@/lib/money"
import { badRequest, namedProblem, notFound } from "@/lib/sandbox/problems"
import type { QuoteExecutionCreate, QuoteExecutionListQuery } from "@/lib/schemas/quote-execution"
import { isUuid, readPage, timeBound } from "@/lib/sandbox/cursor"
import { type WireExecution, plain, timestamp, wireExecution } from "@/lib/sandbox/format"
import { commitFunds, creditFunds, releaseFunds } from "@/lib/sandbox/ledger"
import { movedTooFar, usdValue } from "@/lib/sandbox/pricing"
import type { ProfileDirectory } from "@/lib/sandbox/profiles"
import { type QuoteBook, expiryOfQuoteId } from "@/lib/sandbox/quotes"
import { RefIds } from "@/lib/sandbox/ref-ids"

interface ExecutionDeps {
  db: Db
  now: () => Date
  quotes: QuoteBook
  profiles: ProfileDirectory
  maxExecutionUsd: number
}

/** Quote executions: a held quote executed against a profile's balances, settled later. */
export class QuoteExecutions {
  private readonly refIds: RefIds<SandboxExecutionRow>

  constructor(private readonly deps: ExecutionDeps) {
    this.refIds = new RefIds(deps.db, sandboxExecutions, sandboxExecutions.profileId, { name: "quote execution", wire: wireExecution })
  }

  /** POST /v2/profiles/{profile_id}/quote-executions */
  async create(clientId: string, profileId: string, input: QuoteExecutionCreate): Promise<{ record: WireExecution; created: boolean }> {
    const ctx = this.deps
    const profile = await ctx.profiles.require(profileId)
    const recipient =
      input.recipient_profile_id === undefined ? null : await ctx.profiles.require(input.recipient_profile_id, "recipient profile")
    await this.refIds.refuseTaken(profile.id, input.ref_id)

    const quote = await ctx.quotes.find(input.quote_id)
    const now = ctx.now()
    if (!quote) {
      // Pruned an hour after it expired, a quote is still known by its id (see newQuoteId).
      const expiredAt = expiryOfQuoteId(input.quote_id)
      if (expiredAt !== null && now.getTime() >= expiredAt.getTime()) throw expired(input.quote_id.toLowerCase(), expiredAt)
      throw notFound(`quote not found with id ${input.quote_id}`)
    }
    if (now.getTime() >= quote.expiresAt.getTime()) throw expired(quote.id, quote.expiresAt)

    const amounts = executionAmounts({
      side: quote.side,
      price: plain(quote.price),
      base_amount: input.base_amount,
      quote_amount: input.quote_amount,
    })
    const quoteAmount = toDecimal(amounts.quote_amount)
    const baseAmount = toDecimal(amounts.base_amount)
    const field = input.base_amount !== undefined ? "base_amount" : "quote_amount"
    if (baseAmount.lte(0) || quoteAmount.lte(0)) {
      throw badRequest({ [field]: "is too small to trade at this price" })
    }
    const valueUsd = usdValue(quote.quoteAsset, quoteAmount)
    if (valueUsd === null || valueUsd.gt(ctx.maxExecutionUsd)) {
      const shown = valueUsd === null ? quoteAmount.toString() : valueUsd.toDecimalPlaces(2).toString()
      throw badRequest(
        { [field]: `above the maximum ${ctx.maxExecutionUsd} USD per execution` },
        `${shown} amount is above the maximum ${ctx.maxExecutionUsd} USD`,
      )
    }

    if (movedTooFar(toDecimal(quote.mid), await ctx.quotes.currentMid(quote.market))) {
      throw namedProblem("rejected", 403, "extreme market conditions have invalidated this quote execution", {})
    }

    const row: SandboxExecutionRow = {
      id: randomUUID(),
      profileId: profile.id,
      quoteId: quote.id,
      refId: input.ref_id ?? null,
      status: "CREATED",
      market: quote.market,
      side: quote.side,
      price: quote.price,
      baseAmount: amounts.base_amount,
      baseAsset: quote.baseAsset,
      quoteAmount: amounts.quote_amount,
      quoteAsset: quote.quoteAsset,
      metadata: input.metadata ?? null,
      identityId: input.identity_id ?? null,
      accountId: input.account_id ?? null,
      recipientProfileId: recipient?.id ?? null,
      clientId,
      createdAt: now,
      settledAt: null,
    }
    const paying = quote.side === "BUY" ? { asset: quote.quoteAsset, amount: quoteAmount } : { asset: quote.baseAsset, amount: baseAmount }
    await this.refIds.insert(profile.id, input.ref_id, row, (tx) => commitFunds(tx, profile.id, paying.asset, paying.amount, now))
    return { record: wireExecution(row), created: true }
  }

  /** GET /v2/profiles/{profile_id}/quote-executions/{id} */
  async get(profileId: string, id: string): Promise<WireExecution> {
    const profile = await this.deps.profiles.require(profileId)
    const [row] = isUuid(id)
      ? await this.deps.db
          .select()
          .from(sandboxExecutions)
          .where(and(eq(sandboxExecutions.profileId, profile.id), eq(sandboxExecutions.id, id.toLowerCase())))
      : []
    if (!row) throw notFound(`quote execution not found with id ${id}`)
    return wireExecution(row)
  }

  /** GET /v2/profiles/{profile_id}/quote-executions */
  async list(profileId: string, query: QuoteExecutionListQuery): Promise<{ total_count: number; items: WireExecution[]; next_page_cursor?: string }> {
    const profile = await this.deps.profiles.require(profileId)
    const t = sandboxExecutions
    const filters: SQL[] = [eq(t.profileId, profile.id)]
    if (query.side) filters.push(eq(t.side, query.side))
    if (query.market) filters.push(eq(t.market, query.market))
    if (query.status) filters.push(eq(t.status, query.status))
    if (query["created_at.begin"]) filters.push(gte(t.createdAt, timeBound(query["created_at.begin"], "begin")))
    if (query["created_at.end"]) filters.push(lte(t.createdAt, timeBound(query["created_at.end"], "end")))

    const [totals] = await this.deps.db.select({ n: count() }).from(t).where(and(...filters))
    const page = await readPage(this.deps.db, t, filters, { page_cursor: query.page_cursor, order: query.order ?? "DESC", limit: query.limit ?? 100 })
    return { total_count: totals?.n ?? 0, ...page, items: page.items.map(wireExecution) }
  }

  /**
   * Settles one execution if it is still CREATED: the paid side leaves `trading`, the
   * acquired side is credited to the recipient (or the profile). The conditional status
   * update makes a second settlement of the same execution a no-op.
   */
  settle(id: string, now: Date): Promise<boolean> {
    return this.deps.db.transaction(async (tx) => {
      const [row] = await tx
        .update(sandboxExecutions)
        .set({ status: "SETTLED", settledAt: now })
        .where(and(eq(sandboxExecutions.id, id), eq(sandboxExecutions.status, "CREATED")))
        .returning()
      if (!row) return false
      const base = toDecimal(row.baseAmount)
      const quote = toDecimal(row.quoteAmount)
      const receiver = row.recipientProfileId ?? row.profileId
      if (row.side === "BUY") {
        await releaseFunds(tx, row.profileId, row.quoteAsset, quote, now)
        await creditFunds(tx, receiver, row.baseAsset, base, now)
      } else {
        await releaseFunds(tx, row.profileId, row.baseAsset, base, now)
        await creditFunds(tx, receiver, row.quoteAsset, quote, now)
      }
      return true
    })
  }
}

function expired(quoteId: string, expiresAt: Date) {
  return namedProblem("expired", 403, `quote ${quoteId} expired at ${timestamp(expiresAt)}`, {
    expired_at: timestamp(expiresAt),
  })
}
