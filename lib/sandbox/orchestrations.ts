import "server-only"
import { randomUUID } from "node:crypto"
import { type SQL, and, eq, gt, gte, inArray, lt, lte } from "drizzle-orm"
import { type SandboxOrchestrationRow, sandboxOrchestrations } from "@/lib/db/schema"
import { toDecimal } from "@/lib/money"
import { badRequest, notFound } from "@/lib/sandbox/problems"
import type { OrchestrationCreate, OrchestrationListQuery } from "@/lib/schemas/orchestration"
import { type ConversionDeps, ZERO_UUID, convertedAmount } from "@/lib/sandbox/conversions"
import { isUuid, readPage } from "@/lib/sandbox/cursor"
import { type WireOrchestration, wireOrchestration } from "@/lib/sandbox/format"
import { commitFunds, creditFunds, refundFunds, releaseFunds } from "@/lib/sandbox/ledger"
import { RefIds } from "@/lib/sandbox/ref-ids"

/** What a list filter may hold at most, as the service documents for each of them. */
const MAX_FILTER_VALUES = 100

/**
 * Orchestrations, the profile-to-profile conversion flow: 1:1 between USD and a
 * stablecoin, like conversions and on the same ledger. The source is debited at creation
 * (PROCESSING, committed to `trading`); completion credits the destination profile;
 * failure refunds the source. A client sees only its own orchestrations; `ref_id` is
 * required and unique per client.
 */
export class Orchestrations {
  private readonly refIds: RefIds<SandboxOrchestrationRow>

  constructor(private readonly deps: ConversionDeps) {
    this.refIds = new RefIds(deps.db, sandboxOrchestrations, sandboxOrchestrations.clientId, { name: "orchestration", wire: wireOrchestration })
  }

  /**
   * POST /v2/orchestration/orchestrations. `failDetail` set: a fault rule decided that
   * this one fails when it falls due (it is accepted, PROCESSING, as the service would).
   */
  async create(clientId: string, input: OrchestrationCreate, failDetail: string | null = null): Promise<WireOrchestration> {
    const ctx = this.deps
    const source = await ctx.profiles.require(input.source.profile.profile_id, "source profile")
    const destination = await ctx.profiles.require(input.destination.profile.profile_id, "destination profile")
    await this.refIds.refuseTaken(clientId, input.ref_id)
    const amount = convertedAmount(input.source_amount, "source_amount", "orchestration", ctx.maxConversionUsd)
    const now = ctx.now()
    const row: SandboxOrchestrationRow = {
      id: randomUUID(),
      clientId,
      sourceProfileId: source.id,
      destinationProfileId: destination.id,
      sourceAmount: amount.toFixed(),
      sourceAsset: input.source_asset,
      destinationAsset: input.destination_asset,
      status: "PROCESSING",
      refId: input.ref_id,
      identityId: input.identity_id ?? ZERO_UUID,
      accountId: input.account_id ?? ZERO_UUID,
      metadata: input.metadata ?? null,
      sourceTransferId: randomUUID(),
      destinationTransferId: randomUUID(),
      failDetail,
      createdAt: now,
      updatedAt: now,
    }
    await this.refIds.insert(clientId, input.ref_id, row, (tx) => commitFunds(tx, source.id, input.source_asset, amount, now))
    return wireOrchestration(row)
  }

  /** GET /v2/orchestration/orchestrations/{id} */
  async get(clientId: string, id: string): Promise<WireOrchestration> {
    if (isUuid(id)) {
      const [row] = await this.deps.db
        .select()
        .from(sandboxOrchestrations)
        .where(and(eq(sandboxOrchestrations.clientId, clientId), eq(sandboxOrchestrations.id, id.toLowerCase())))
      if (row) return wireOrchestration(row)
    }
    throw notFound(`orchestration with id ${id} not found for customer with id ${clientId}`)
  }

  /** GET /v2/orchestration/orchestrations: newest first by default; list filters match any of their values. */
  async list(clientId: string, query: OrchestrationListQuery): Promise<{ orchestrations: WireOrchestration[]; next_page_cursor?: string }> {
    const t = sandboxOrchestrations
    const filters: SQL[] = [eq(t.clientId, clientId)]
    for (const [name, values] of Object.entries({
      profile_id: query.profile_id,
      source_asset: query.source_asset,
      destination_asset: query.destination_asset,
      status: query.status,
      orchestration_id: query.orchestration_id,
      orchestration_rule_id: query.orchestration_rule_id,
    })) {
      if (values && values.length > MAX_FILTER_VALUES) throw badRequest({ [name]: `at most ${MAX_FILTER_VALUES} values` })
    }
    const ids = (values: string[]) => values.filter(isUuid).map((v) => v.toLowerCase())
    if (query.profile_id?.length) filters.push(inArray(t.sourceProfileId, ids(query.profile_id).concat(ZERO_UUID)))
    if (query.orchestration_id?.length) filters.push(inArray(t.id, ids(query.orchestration_id).concat(ZERO_UUID)))
    if (query.source_asset?.length) filters.push(inArray(t.sourceAsset, query.source_asset))
    if (query.destination_asset?.length) filters.push(inArray(t.destinationAsset, query.destination_asset))
    if (query.status?.length) filters.push(inArray(t.status, query.status as SandboxOrchestrationRow["status"][]))
    // Every orchestration here is ad hoc: none was started by a rule.
    if (query.orchestration_rule_id?.length) return { orchestrations: [] }
    const at = (key: "lt" | "lte" | "eq" | "gte" | "gt") => {
      const value = query[`created_at.${key}`]
      return value === undefined ? undefined : new Date(value)
    }
    const bounds = { lt: at("lt"), lte: at("lte"), eq: at("eq"), gte: at("gte"), gt: at("gt") }
    if (bounds.lt) filters.push(lt(t.createdAt, bounds.lt))
    if (bounds.lte) filters.push(lte(t.createdAt, bounds.lte))
    if (bounds.eq) filters.push(eq(t.createdAt, bounds.eq))
    if (bounds.gte) filters.push(gte(t.createdAt, bounds.gte))
    if (bounds.gt) filters.push(gt(t.createdAt, bounds.gt))
    const page = await readPage(this.deps.db, t, filters, { page_cursor: query.page_cursor, order: query.order ?? "DESC", limit: query.limit ?? 100 })
    const out: { orchestrations: WireOrchestration[]; next_page_cursor?: string } = { orchestrations: page.items.map(wireOrchestration) }
    if (page.next_page_cursor) out.next_page_cursor = page.next_page_cursor
    return out
  }

  /**
   * PROCESSING → COMPLETED (the source leaves `trading`, the destination profile is
   * credited) or, when a fault rule marked it, PROCESSING → FAILED (the source refunded).
   */
  settle(id: string, now: Date): Promise<boolean> {
    return this.deps.db.transaction(async (tx) => {
      const [pending] = await tx
        .select({ failDetail: sandboxOrchestrations.failDetail })
        .from(sandboxOrchestrations)
        .where(and(eq(sandboxOrchestrations.id, id), eq(sandboxOrchestrations.status, "PROCESSING")))
      if (!pending) return false
      const status = pending.failDetail === null ? "COMPLETED" : "FAILED"
      const [row] = await tx
        .update(sandboxOrchestrations)
        .set({ status, updatedAt: now })
        .where(and(eq(sandboxOrchestrations.id, id), eq(sandboxOrchestrations.status, "PROCESSING")))
        .returning()
      if (!row) return false
      const amount = toDecimal(row.sourceAmount)
      if (status === "FAILED") {
        await refundFunds(tx, row.sourceProfileId, row.sourceAsset, amount, now)
      } else {
        await releaseFunds(tx, row.sourceProfileId, row.sourceAsset, amount, now)
        await creditFunds(tx, row.destinationProfileId, row.destinationAsset, amount, now)
      }
      return true
    })
  }
}
