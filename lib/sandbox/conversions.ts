import "server-only"
import { randomUUID } from "node:crypto"
import { type SQL, and, eq, gte, lte } from "drizzle-orm"
import type { Db } from "@/lib/db/client"
import { type SandboxConversionRow, sandboxConversions } from "@/lib/db/schema"
import { type Decimal, toDecimal } from "@/lib/money"
import { badRequest, genericProblem, notFound } from "@/lib/sandbox/problems"
import type { ConversionCreate, ConversionListQuery } from "@/lib/schemas/conversion"
import { isUuid, readPage, timeBound } from "@/lib/sandbox/cursor"
import { type WireConversion, plain, wireConversion } from "@/lib/sandbox/format"
import { commitFunds, creditFunds, refundFunds, releaseFunds } from "@/lib/sandbox/ledger"
import type { ProfileDirectory } from "@/lib/sandbox/profiles"
import { RefIds } from "@/lib/sandbox/ref-ids"

/** identity_id and account_id when the request leaves them out, as the service does. */
export const ZERO_UUID = "00000000-0000-0000-0000-000000000000"

/** What conversions and orchestrations (the same 1:1 conversions, another flow) work with. */
export interface ConversionDeps {
  db: Db
  now: () => Date
  profiles: ProfileDirectory
  maxConversionUsd: number
}

/**
 * A conversion's amount, at most `max` USD: every pair is USD on one side and a 1:1
 * stablecoin on the other, so the amount is its USD value.
 */
export function convertedAmount(value: string, field: "amount" | "source_amount", per: "conversion" | "orchestration", max: number): Decimal {
  const amount = toDecimal(value)
  if (amount.gt(max)) throw badRequest({ [field]: `above the maximum ${max} USD per ${per}` }, `${plain(amount)} ${field} is above the maximum ${max} USD`)
  return amount
}

/**
 * Stablecoin conversions, 1:1 between USD and a stablecoin. The source asset is debited
 * at creation (committed to `trading`); settlement credits the target, cancellation
 * refunds the source. A client sees only its own conversions.
 */
export class Conversions {
  private readonly refIds: RefIds<SandboxConversionRow>

  constructor(private readonly deps: ConversionDeps) {
    this.refIds = new RefIds(deps.db, sandboxConversions, sandboxConversions.clientId, { name: "conversion", wire: wireConversion })
  }

  /** POST /v2/conversion/stablecoins */
  async create(clientId: string, input: ConversionCreate): Promise<{ record: WireConversion; created: boolean }> {
    const ctx = this.deps
    const profile = await ctx.profiles.require(input.profile_id)
    const recipient =
      input.recipient_profile_id === undefined ? null : await ctx.profiles.require(input.recipient_profile_id, "recipient profile")
    await this.refIds.refuseTaken(clientId, input.ref_id)
    const amount = convertedAmount(input.amount, "amount", "conversion", ctx.maxConversionUsd)
    const now = ctx.now()
    const row: SandboxConversionRow = {
      id: randomUUID(),
      clientId,
      profileId: profile.id,
      amount: amount.toFixed(),
      sourceAsset: input.source_asset,
      targetAsset: input.target_asset,
      status: "CREATED",
      refId: input.ref_id ?? null,
      identityId: input.identity_id ?? ZERO_UUID,
      accountId: input.account_id ?? ZERO_UUID,
      metadata: input.metadata ?? null,
      recipientProfileId: recipient?.id ?? null,
      createdAt: now,
      updatedAt: now,
      settledAt: null,
      cancelledAt: null,
    }
    await this.refIds.insert(clientId, input.ref_id, row, (tx) => commitFunds(tx, profile.id, input.source_asset, amount, now))
    return { record: wireConversion(row), created: true }
  }

  /** GET /v2/conversion/stablecoins/{id} */
  async get(clientId: string, id: string): Promise<WireConversion> {
    const row = await this.findOwn(clientId, id)
    if (!row) throw conversionNotFound(id, clientId)
    return wireConversion(row)
  }

  /** DELETE /v2/conversion/stablecoins/{id}: CREATED → CANCELLED with the source refunded; otherwise 409. */
  async cancel(clientId: string, id: string): Promise<{ record: WireConversion; changed: boolean }> {
    if (!isUuid(id)) throw conversionNotFound(id, clientId)
    const now = this.deps.now()
    const cancelled = await this.deps.db.transaction(async (tx) => {
      const [row] = await tx
        .update(sandboxConversions)
        .set({ status: "CANCELLED", cancelledAt: now, updatedAt: now })
        .where(
          and(
            eq(sandboxConversions.clientId, clientId),
            eq(sandboxConversions.id, id.toLowerCase()),
            eq(sandboxConversions.status, "CREATED"),
          ),
        )
        .returning()
      if (!row) return null
      await refundFunds(tx, row.profileId, row.sourceAsset, toDecimal(row.amount), now)
      return row
    })
    if (cancelled) return { record: wireConversion(cancelled), changed: true }
    const row = await this.findOwn(clientId, id)
    if (!row) throw conversionNotFound(id, clientId)
    throw genericProblem(409, `conversion ${row.id} cannot be cancelled: its status is ${row.status}`, {
      status: row.status,
      existing: wireConversion(row),
    })
  }

  /** GET /v2/conversion/stablecoins: newest first by default. */
  async list(clientId: string, query: ConversionListQuery): Promise<{ items: WireConversion[]; next_page_cursor?: string }> {
    const t = sandboxConversions
    const filters: SQL[] = [eq(t.clientId, clientId)]
    if (query.profile_id) {
      if (!isUuid(query.profile_id)) return { items: [] }
      filters.push(eq(t.profileId, query.profile_id.toLowerCase()))
    }
    if (query.ref_id) filters.push(eq(t.refId, query.ref_id))
    if (query["created_at.begin"]) filters.push(gte(t.createdAt, timeBound(query["created_at.begin"], "begin")))
    if (query["created_at.end"]) filters.push(lte(t.createdAt, timeBound(query["created_at.end"], "end")))
    if (query["updated_at.begin"]) filters.push(gte(t.updatedAt, timeBound(query["updated_at.begin"], "begin")))
    if (query["updated_at.end"]) filters.push(lte(t.updatedAt, timeBound(query["updated_at.end"], "end")))
    const page = await readPage(this.deps.db, t, filters, { page_cursor: query.page_cursor, order: query.order ?? "DESC", limit: query.limit ?? 100 })
    return { ...page, items: page.items.map(wireConversion) }
  }

  /** CREATED → SETTLED: the source leaves `trading`, the target is credited (recipient or profile). */
  settle(id: string, now: Date): Promise<boolean> {
    return this.deps.db.transaction(async (tx) => {
      const [row] = await tx
        .update(sandboxConversions)
        .set({ status: "SETTLED", settledAt: now, updatedAt: now })
        .where(and(eq(sandboxConversions.id, id), eq(sandboxConversions.status, "CREATED")))
        .returning()
      if (!row) return false
      const amount = toDecimal(row.amount)
      await releaseFunds(tx, row.profileId, row.sourceAsset, amount, now)
      await creditFunds(tx, row.recipientProfileId ?? row.profileId, row.targetAsset, amount, now)
      return true
    })
  }

  private async findOwn(clientId: string, id: string): Promise<SandboxConversionRow | null> {
    if (!isUuid(id)) return null
    const [row] = await this.deps.db
      .select()
      .from(sandboxConversions)
      .where(and(eq(sandboxConversions.clientId, clientId), eq(sandboxConversions.id, id.toLowerCase())))
    return row ?? null
  }
}


function conversionNotFound(id: string, clientId: string) {
  return notFound(`conversion with id ${id} not found for customer with id ${clientId}`)
}
