import "server-only"
import { type SQL, and, eq, gt, gte, inArray, lt, lte } from "drizzle-orm"
import { type SandboxOrchestrationRow, sandboxOrchestrations } from "@/lib/db/schema"
import { type Decimal, toDecimal } from "@/lib/money"
import { badRequest, genericProblem, notFound } from "@/lib/sandbox/problems"
import type { OrchestrationCreate, OrchestrationListQuery } from "@/lib/schemas/orchestration"
import { type ConversionDeps, ZERO_UUID, convertedAmount } from "@/lib/sandbox/conversions"
import { isUuid, readPage } from "@/lib/sandbox/cursor"
import { type WireOrchestration, wireOrchestration } from "@/lib/sandbox/format"
import { type Tx, commitFunds, creditFunds, refundFunds, releaseFunds } from "@/lib/sandbox/ledger"
import { emitEvent } from "@/lib/sandbox/events"
import { timeOrderedId } from "@/lib/sandbox/ids"
import { RefIds } from "@/lib/sandbox/ref-ids"
import type { SettingsStore } from "@/lib/sandbox/settings"
import { finishTransfer, insertTransfer } from "@/lib/sandbox/transfers"
import { HttpProblem } from "@/lib/problem"

export interface OrchestrationListAnswer {
  items: WireOrchestration[]
  /** Deprecated by the service for `items`: the same content. */
  orchestrations: WireOrchestration[]
  next_page_cursor?: string
}

/** What a list filter may hold at most, as the service documents for each of them. */
const MAX_FILTER_VALUES = 100

/** `orchestration.processing|completed|failed`, object `orchestration_status_change`. */
async function emitStatus(tx: Tx, row: SandboxOrchestrationRow, now: Date): Promise<void> {
  if (row.status !== "PROCESSING" && row.status !== "COMPLETED" && row.status !== "FAILED") return
  const object: Record<string, unknown> = { id: row.id, ref_id: row.refId, status: row.status }
  if (row.orchestrationRuleId !== null) object.orchestration_rule_id = row.orchestrationRuleId
  await emitEvent(tx, { clientId: row.clientId, type: `orchestration.${row.status.toLowerCase()}`, objectType: "orchestration_status_change", object }, now)
}

/**
 * PENDING/… → PROCESSING in the caller's transaction: the source debited (committed to
 * `trading`), its debit transfer PENDING, the `orchestration.processing` event.
 */
async function startProcessing(tx: Tx, row: SandboxOrchestrationRow, now: Date): Promise<void> {
  const amount = toDecimal(row.sourceAmount)
  await commitFunds(tx, row.sourceProfileId, row.sourceAsset, amount, now)
  await insertLeg(tx, row, "DEBIT", amount, now)
  await emitStatus(tx, row, now)
}

/** One leg of an orchestration as a transfer: the source's debit (PENDING until it ends) or the destination's credit (COMPLETED). */
async function insertLeg(tx: Tx, row: SandboxOrchestrationRow, direction: "DEBIT" | "CREDIT", amount: Decimal, now: Date): Promise<void> {
  const debit = direction === "DEBIT"
  await insertTransfer(
    tx,
    {
      id: debit ? row.sourceTransferId : row.destinationTransferId,
      clientId: row.clientId,
      profileId: debit ? row.sourceProfileId : row.destinationProfileId,
      type: debit ? "INTERNAL_TRANSFER_DEBIT" : "INTERNAL_TRANSFER_CREDIT",
      direction,
      status: debit ? "PENDING" : "COMPLETED",
      asset: debit ? row.sourceAsset : row.destinationAsset,
      amount: amount.toFixed(),
      refId: row.refId,
      groupId: row.id,
      orchestrationId: row.id,
    },
    now,
  )
}

/**
 * Orchestrations, the profile-to-profile conversion flow: 1:1 between USD and a
 * stablecoin, like conversions and on the same ledger. The source is debited at PROCESSING
 * (committed to `trading`, an INTERNAL_TRANSFER_DEBIT); completion credits the
 * destination profile (an INTERNAL_TRANSFER_CREDIT); failure refunds the source. With the
 * setting `orchestration_approval`, a new one waits in PENDING, nothing moved, until the
 * sandbox admin approves it (→ PROCESSING) or rejects it (→ REJECTED, final). A client sees
 * only its own orchestrations; `ref_id` is required and unique per client.
 */
export class Orchestrations {
  private readonly refIds: RefIds<SandboxOrchestrationRow>

  constructor(
    private readonly deps: ConversionDeps,
    private readonly settings: SettingsStore,
  ) {
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
    const { orchestration_approval: approval } = await this.settings.get()
    const now = ctx.now()
    const row: SandboxOrchestrationRow = {
      id: timeOrderedId(now),
      clientId,
      sourceProfileId: source.id,
      destinationProfileId: destination.id,
      sourceAmount: amount.toFixed(),
      sourceAsset: input.source_asset,
      destinationAsset: input.destination_asset,
      status: approval ? "PENDING" : "PROCESSING",
      refId: input.ref_id,
      identityId: input.identity_id ?? ZERO_UUID,
      accountId: input.account_id ?? ZERO_UUID,
      metadata: input.metadata ?? null,
      sourceTransferId: timeOrderedId(now),
      destinationTransferId: timeOrderedId(now),
      failDetail,
      orchestrationRuleId: null,
      processingAt: approval ? null : now,
      createdAt: now,
      updatedAt: now,
    }
    await this.refIds.insert(clientId, input.ref_id, row, async (tx) => {
      if (!approval) await startProcessing(tx, row, now)
    })
    return wireOrchestration(row)
  }

  /**
   * The service's dashboard approving one (sandbox admin): PENDING → PROCESSING, the source
   * debited; FAILED, nothing moved, when the source's funds no longer cover it.
   */
  async approve(id: string): Promise<WireOrchestration> {
    if (!isUuid(id)) throw notFound(`orchestration with id ${id} not found`)
    const now = this.deps.now()
    const t = sandboxOrchestrations
    const pending = and(eq(t.id, id.toLowerCase()), eq(t.status, "PENDING"))
    let row: SandboxOrchestrationRow | undefined
    try {
      row = await this.deps.db.transaction(async (tx) => {
        const [started] = await tx.update(t).set({ status: "PROCESSING", processingAt: now, updatedAt: now }).where(pending).returning()
        if (started) await startProcessing(tx, started, now)
        return started
      })
    } catch (error) {
      if (!(error instanceof HttpProblem) || error.problem.status !== 403) throw error
      row = await this.deps.db.transaction(async (tx) => {
        const detail = error.problem.detail ?? "insufficient funds"
        const [failed] = await tx.update(t).set({ status: "FAILED", failDetail: detail, updatedAt: now }).where(pending).returning()
        if (failed) await emitStatus(tx, failed, now)
        return failed
      })
    }
    // Looked up outside the transaction: an embedded database has one connection.
    if (!row) throw await this.notPending(id)
    return wireOrchestration(row)
  }

  /** The service's dashboard rejecting one (sandbox admin): PENDING → REJECTED, final, nothing moved. */
  async reject(id: string): Promise<WireOrchestration> {
    if (!isUuid(id)) throw notFound(`orchestration with id ${id} not found`)
    const now = this.deps.now()
    const [row] = await this.deps.db
      .update(sandboxOrchestrations)
      .set({ status: "REJECTED", updatedAt: now })
      .where(and(eq(sandboxOrchestrations.id, id.toLowerCase()), eq(sandboxOrchestrations.status, "PENDING")))
      .returning()
    if (!row) throw await this.notPending(id)
    return wireOrchestration(row)
  }

  /** 404 when there is no such orchestration, 409 when it is not waiting for approval. */
  private async notPending(id: string): Promise<HttpProblem> {
    const [row] = await this.deps.db.select({ status: sandboxOrchestrations.status }).from(sandboxOrchestrations).where(eq(sandboxOrchestrations.id, id.toLowerCase()))
    if (!row) return notFound(`orchestration with id ${id} not found`)
    return genericProblem(409, `orchestration ${id} is ${row.status}, not PENDING: only one waiting for approval can be approved or rejected`, { status: row.status })
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
  async list(clientId: string, query: OrchestrationListQuery): Promise<OrchestrationListAnswer> {
    const t = sandboxOrchestrations
    const filters: SQL[] = [eq(t.clientId, clientId)]
    for (const [name, values] of Object.entries({
      profile_id: query.profile_id,
      source_asset: query.source_asset,
      destination_asset: query.destination_asset,
      status: query.status,
      orchestration_id: query.orchestration_id,
      orchestration_rule_id: query.orchestration_rule_id,
      ref_id: query.ref_id,
    })) {
      if (values && values.length > MAX_FILTER_VALUES) throw badRequest({ [name]: `at most ${MAX_FILTER_VALUES} values` })
    }
    const ids = (values: string[]) => values.filter(isUuid).map((v) => v.toLowerCase())
    if (query.profile_id?.length) filters.push(inArray(t.sourceProfileId, ids(query.profile_id).concat(ZERO_UUID)))
    if (query.orchestration_id?.length) filters.push(inArray(t.id, ids(query.orchestration_id).concat(ZERO_UUID)))
    if (query.source_asset?.length) filters.push(inArray(t.sourceAsset, query.source_asset))
    if (query.destination_asset?.length) filters.push(inArray(t.destinationAsset, query.destination_asset))
    if (query.status?.length) filters.push(inArray(t.status, query.status as SandboxOrchestrationRow["status"][]))
    if (query.orchestration_rule_id?.length) filters.push(inArray(t.orchestrationRuleId, query.orchestration_rule_id))
    if (query.ref_id?.length) filters.push(inArray(t.refId, query.ref_id))
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
    const items = page.items.map(wireOrchestration)
    // `orchestrations` is deprecated for `items`; the service still answers both, with the same content.
    const out: OrchestrationListAnswer = { items, orchestrations: items }
    if (page.next_page_cursor) out.next_page_cursor = page.next_page_cursor
    return out
  }

  /**
   * PROCESSING → COMPLETED (the source leaves `trading` and its debit transfer completes;
   * the destination profile is credited by a credit transfer) or, when a fault rule marked
   * it, PROCESSING → FAILED (the source refunded, its debit transfer FAILED). Each with its events.
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
        await finishTransfer(tx, row.sourceTransferId, "FAILED", now)
      } else {
        await releaseFunds(tx, row.sourceProfileId, row.sourceAsset, amount, now)
        await finishTransfer(tx, row.sourceTransferId, "COMPLETED", now)
        await creditFunds(tx, row.destinationProfileId, row.destinationAsset, amount, now)
        await insertLeg(tx, row, "CREDIT", amount, now)
      }
      await emitStatus(tx, row, now)
      return true
    })
  }
}
