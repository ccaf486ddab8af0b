import "server-only"
import { randomUUID } from "node:crypto"
import { type SQL, and, count, eq, gte, lte } from "drizzle-orm"
import type { Db } from "@/lib/db/client"
import { type SandboxExecutionRow, sandboxExecutions } from "@/lib/db/schema"
import { executionAmounts, toDecimal } from "@/lib/money"
import type { QuoteExecutionCreate, QuoteExecutionListQuery } from "@/lib/schemas/quote-execution"
import { afterCursor, isUuid, keysetOrder, pageOf, timeBound } from "@/lib/sandbox/cursor"
import { type WireExecution, plain, timestamp, wireExecution } from "@/lib/sandbox/format"
import { commitFunds, creditFunds, releaseFunds } from "@/lib/sandbox/ledger"
import { movedTooFar, usdValue } from "@/lib/sandbox/pricing"
import { badRequest, namedProblem, notFound } from "@/lib/problem"
import type { ProfileDirectory } from "@/lib/sandbox/profiles"
import { type QuoteBook, expiryOfQuoteId } from "@/lib/sandbox/quotes"

/** Thrown inside the create transaction when the ref_id is taken: rolls the debit back. */
class RefIdTaken extends Error {}

export interface ExecutionContext {
  db: Db
  now: () => Date
  quotes: QuoteBook
  profiles: ProfileDirectory
  maxExecutionUsd: number
}

/** POST /v2/profiles/{profile_id}/quote-executions */
export async function createExecution(
  ctx: ExecutionContext,
  clientId: string,
  profileId: string,
  input: QuoteExecutionCreate,
): Promise<{ record: WireExecution; created: boolean }> {
  const profile = await ctx.profiles.require(profileId)
  const recipient =
    input.recipient_profile_id === undefined ? null : await ctx.profiles.require(input.recipient_profile_id, "recipient profile")

  // A retry of an execution that exists gets 409 with the record, even once its quote has
  // expired: the ref_id is what the client reconciles with. The unique index below, not
  // this read, is what keeps concurrent creates to one record.
  if (input.ref_id !== undefined) {
    const existing = await findByRef(ctx.db, profile.id, input.ref_id)
    if (existing) throw alreadyExists(existing)
  }

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
  try {
    await ctx.db.transaction(async (tx) => {
      // Insert first: a concurrent insert with the same ref_id waits here for the first
      // to commit, then inserts nothing, and this transaction ends before any debit.
      const inserted = await tx.insert(sandboxExecutions).values(row).onConflictDoNothing().returning({ id: sandboxExecutions.id })
      if (inserted.length === 0) throw new RefIdTaken()
      await commitFunds(tx, profile.id, paying.asset, paying.amount, now)
    })
  } catch (error) {
    if (error instanceof RefIdTaken && input.ref_id !== undefined) {
      const existing = await findByRef(ctx.db, profile.id, input.ref_id)
      if (existing) throw alreadyExists(existing)
    }
    throw error
  }
  return { record: wireExecution(row), created: true }
}

function expired(quoteId: string, expiresAt: Date) {
  return namedProblem("expired", 403, `quote ${quoteId} expired at ${timestamp(expiresAt)}`, {
    expired_at: timestamp(expiresAt),
  })
}

function alreadyExists(existing: SandboxExecutionRow) {
  return namedProblem("already-exists", 409, `quote execution already exists with ref_id '${existing.refId}'`, {
    existing: wireExecution(existing),
  })
}

async function findByRef(db: Db, profileId: string, refId: string): Promise<SandboxExecutionRow | null> {
  const [row] = await db
    .select()
    .from(sandboxExecutions)
    .where(and(eq(sandboxExecutions.profileId, profileId), eq(sandboxExecutions.refId, refId)))
  return row ?? null
}

/** GET /v2/profiles/{profile_id}/quote-executions/{id} */
export async function getExecution(ctx: ExecutionContext, profileId: string, id: string): Promise<WireExecution> {
  const profile = await ctx.profiles.require(profileId)
  const [row] = isUuid(id)
    ? await ctx.db
        .select()
        .from(sandboxExecutions)
        .where(and(eq(sandboxExecutions.profileId, profile.id), eq(sandboxExecutions.id, id.toLowerCase())))
    : []
  if (!row) throw notFound(`quote execution not found with id ${id}`)
  return wireExecution(row)
}

/** GET /v2/profiles/{profile_id}/quote-executions */
export async function listExecutions(
  ctx: ExecutionContext,
  profileId: string,
  query: QuoteExecutionListQuery,
): Promise<{ total_count: number; items: WireExecution[]; next_page_cursor?: string }> {
  const profile = await ctx.profiles.require(profileId)
  const t = sandboxExecutions
  const order = query.order ?? "DESC"
  const limit = query.limit ?? 100
  const filters: SQL[] = [eq(t.profileId, profile.id)]
  if (query.side) filters.push(eq(t.side, query.side))
  if (query.market) filters.push(eq(t.market, query.market))
  if (query.status) filters.push(eq(t.status, query.status))
  if (query["created_at.begin"]) filters.push(gte(t.createdAt, timeBound(query["created_at.begin"], "begin")))
  if (query["created_at.end"]) filters.push(lte(t.createdAt, timeBound(query["created_at.end"], "end")))

  const [totals] = await ctx.db.select({ n: count() }).from(t).where(and(...filters))
  const after = afterCursor(t, query.page_cursor, order)
  const rows = await ctx.db
    .select()
    .from(t)
    .where(and(...filters, ...(after ? [after] : [])))
    .orderBy(...keysetOrder(t, order))
    .limit(limit + 1)
  const page = pageOf(rows, limit, order)
  return { total_count: totals?.n ?? 0, ...page, items: page.items.map(wireExecution) }
}

/**
 * Settles one execution if it is still CREATED: the paid side leaves `trading`, the
 * acquired side is credited to the recipient (or the profile). The conditional status
 * update makes a second settlement of the same execution a no-op.
 */
export async function settleExecution(db: Db, id: string, now: Date): Promise<boolean> {
  return db.transaction(async (tx) => {
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
