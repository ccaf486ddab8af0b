import "server-only"
import { and, desc, eq, inArray, lte, sql } from "drizzle-orm"
import { type Staff, roleAtLeast } from "@/lib/auth/roles"
import { sameRequest } from "@/lib/console/intents"
import { type ConsoleDeps, type PlaceOptions, type Placed, createConversion, executeQuote } from "@/lib/console/operations"
import {
  type Clock,
  type OrderSize,
  checkLimits,
  conversionSize,
  executionSize,
  needsApproval,
  policyFromJson,
  storedPolicyJson,
  usedTodaySum,
  usedTodayWhere,
} from "@/lib/console/policy"
import type { Db } from "@/lib/db/client"
import { type ConsoleApproval, type ConsoleIntent, consoleApprovals, consoleIntents } from "@/lib/db/schema"
import { log } from "@/lib/log"
import { Decimal, FIAT_DECIMALS, toDecimal } from "@/lib/money"
import {
  type HttpProblem,
  noHeldQuote,
  notAllowed,
  notFound,
  priceMoved,
  quoteNotCurrent,
  quotesUnavailable,
  refIdReused,
  requestExpired,
  requestRejected,
  requestWithdrawn,
  roleRequired,
  stateConflict as stateProblem,
  validationFailed,
} from "@/lib/problem"
import type { Problem } from "@/lib/schemas/problem"
import type { ApprovalDecision, ApprovalListQuery, ApprovalPage, ApprovalRequest, ApprovalState } from "@/lib/schemas/approvals"
import { isUuid } from "@/lib/schemas/common"
import type { ConversionsApi } from "@/lib/schemas/constants"
import type { ConversionCreate } from "@/lib/schemas/conversion"
import type { QuoteExecutionCreate, ReviewedQuote } from "@/lib/schemas/quote-execution"
import type { Conversion, Quote, QuoteExecution } from "@/lib/schemas/records"

/**
 * Four eyes: a create at or over the policy's threshold is not sent. It is stored as an
 * intent in AWAITING_APPROVAL with an approval row beside it (same id), and is sent
 * through the same exactly-once path as any create once someone other than the maker
 * approves it. A request is an intent that waits.
 */

export type ApprovalAction = "approve" | "reject" | "withdraw" | "expire" | "price_moved"

export interface TransitionContext {
  actor: Staff | null
  makerEmail: string
  now: Date
  expiresAt: Date
  reason?: string | undefined
}

function conflict(detail: string, state: ApprovalState): HttpProblem {
  return stateProblem(detail, { state })
}

/**
 * The request state machine. PENDING → APPROVED (someone else, trader or admin) |
 * REJECTED (someone else, with a reason) | WITHDRAWN (the maker) | EXPIRED (its time is
 * up); APPROVED → PRICE_MOVED (the held price is past the limit). Everything else is
 * refused: 403 for the wrong person, 400 for a missing reason, 409 for the wrong state.
 */
export function transition(state: ApprovalState, action: ApprovalAction, ctx: TransitionContext): ApprovalState {
  const isMaker = ctx.actor !== null && ctx.actor.email.toLowerCase() === ctx.makerEmail.toLowerCase()
  const expired = ctx.now.getTime() >= ctx.expiresAt.getTime()
  if (action === "price_moved") {
    if (state !== "APPROVED") throw conflict(`Only an approved request can end PRICE_MOVED; this one is ${state}.`, state)
    return "PRICE_MOVED"
  }
  if (state !== "PENDING") throw conflict(`This request is ${state}; only a PENDING request can be changed.`, state)
  switch (action) {
    case "expire":
      if (!expired) throw conflict("This request has not expired yet.", state)
      return "EXPIRED"
    case "withdraw":
      if (!isMaker) throw notAllowed("Only the person who asked can withdraw a request.")
      if (expired) throw conflict("This request has expired.", "EXPIRED")
      return "WITHDRAWN"
    case "approve":
    case "reject": {
      if (!ctx.actor || !roleAtLeast(ctx.actor.role, "trader")) {
        throw roleRequired("trader", ctx.actor?.role ?? null, "Approving and rejecting need the trader or admin role.")
      }
      if (isMaker) throw notAllowed(`You asked for this ${action === "approve" ? "order; someone else must approve it" : "order; withdraw it instead of rejecting it"}.`)
      if (action === "reject" && !ctx.reason?.trim()) throw validationFailed({ reason: "give a reason for the rejection" })
      if (expired) throw conflict("This request has expired.", "EXPIRED")
      return action === "approve" ? "APPROVED" : "REJECTED"
    }
  }
}

/** Where the held quotes come from: the shared quote cache in the app, the service in tests. */
export type HeldQuotes = (quoteId?: string) => Promise<Quote[]>

export interface ApprovalOptions {
  heldQuotes: HeldQuotes
  now?: Clock
}

export type Submission<T> =
  | { kind: "placed"; placed: Placed<T> }
  | { kind: "request"; request: ApprovalRequest; replayed: boolean }

/** The worst price the maker accepts: the reviewed price moved by the tolerance against them. */
export function limitPrice(side: string, price: string, tolerancePercent: string): Decimal {
  const move = toDecimal(price).mul(toDecimal(tolerancePercent)).div(100)
  return side === "BUY" ? toDecimal(price).add(move) : toDecimal(price).sub(move)
}

/** A held price is acceptable when it is at or better than the limit for the side. */
export function withinLimit(side: string, price: string, limit: string): boolean {
  return side === "BUY" ? toDecimal(price).lte(toDecimal(limit)) : toDecimal(price).gte(toDecimal(limit))
}

interface Gate {
  operation: "create_execution" | "create_conversion"
  kind: "execution" | "conversion"
  staff: Staff
  profileId: string
  refId: string
  request: Record<string, unknown>
  size: OrderSize
  quote?: Pick<Quote, "market" | "side" | "price"> | undefined
  /** The conversion API a conversion goes to, recorded on its intent when it is admitted. */
  upstreamApi?: ConversionsApi | undefined
}

async function intentByRef(db: Db, operation: Gate["operation"], refId: string): Promise<ConsoleIntent | null> {
  const [row] = await db
    .select()
    .from(consoleIntents)
    .where(and(eq(consoleIntents.operation, operation), eq(consoleIntents.refId, refId)))
    .limit(1)
  return row ?? null
}

async function approvalOf(db: Db, id: string): Promise<ConsoleApproval | null> {
  const [row] = await db.select().from(consoleApprovals).where(eq(consoleApprovals.intentId, id)).limit(1)
  return row ?? null
}

/**
 * Checks the limits and writes the intent in one transaction per staff member (so two
 * orders at once cannot both fit under one day's limit): PENDING to be sent now, or
 * AWAITING_APPROVAL with its approval row. A ref_id that has an intent already writes nothing.
 * An intent to be sent now comes back as written, for the placement to send under.
 */
async function admit(db: Db, gate: Gate, at: Date): Promise<{ admitted: "send"; intent: ConsoleIntent } | { admitted: "request" | "exists" }> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`console_limits:${gate.staff.email}`}))`)
    // After the lock, in one statement: an intent already under this ref_id, the policy
    // in force and what the staff member has used today.
    const existing = tx
      .select({ id: consoleIntents.id })
      .from(consoleIntents)
      .where(and(eq(consoleIntents.operation, gate.operation), eq(consoleIntents.refId, gate.refId)))
      .limit(1)
    const [read] = await tx
      .select({
        existing: sql<string | null>`(${existing})`,
        policy: storedPolicyJson,
        used: usedTodaySum,
      })
      .from(consoleIntents)
      .where(usedTodayWhere(gate.staff.email, gate.size.currency, at))
    if (!read) throw new Error("an aggregate answered no row")
    // A ref_id the console has taken is answered from its intent, whatever the limits say now.
    if (read.existing !== null) return { admitted: "exists" }
    const policy = policyFromJson(read.policy)
    checkLimits(policy, gate.staff, gate.size, toDecimal(read.used ?? "0"))
    const waits = needsApproval(policy, gate.kind, gate.size)
    const [intent] = await tx
      .insert(consoleIntents)
      .values({
        staffEmail: gate.staff.email,
        staffRole: gate.staff.role,
        operation: gate.operation,
        profileId: gate.profileId,
        refId: gate.refId,
        request: gate.request,
        upstreamApi: gate.upstreamApi ?? null,
        state: waits ? "AWAITING_APPROVAL" : "PENDING",
        sizeAmount: gate.size.amount.toFixed(FIAT_DECIMALS),
        sizeCurrency: gate.size.currency,
        createdAt: at,
        updatedAt: at,
      })
      .onConflictDoNothing()
      .returning()
    if (!intent) return { admitted: "exists" }
    if (!waits) return { admitted: "send", intent }
    const quote = gate.quote
    const limit = quote ? limitPrice(quote.side, quote.price, policy.price_tolerance_percent) : null
    await tx.insert(consoleApprovals).values({
      intentId: intent.id,
      kind: gate.kind,
      makerEmail: gate.staff.email,
      makerRole: gate.staff.role,
      createdAt: at,
      expiresAt: new Date(at.getTime() + policy.request_ttl_minutes * 60_000),
      request: gate.request,
      sizeAmount: gate.size.amount.toFixed(FIAT_DECIMALS),
      sizeCurrency: gate.size.currency,
      market: quote?.market ?? null,
      side: quote?.side ?? null,
      reviewedPrice: quote?.price ?? null,
      // The limit keeps the quote's own precision, rounded against the maker no further.
      limitPrice: limit ? limit.toFixed(Math.max(decimalsOf(quote?.price ?? "0"), 2) + 4) : null,
    })
    return { admitted: "request" }
  })
}

function decimalsOf(value: string): number {
  const dot = value.indexOf(".")
  return dot === -1 ? 0 : value.length - dot - 1
}

type GateKey = Pick<Gate, "operation" | "refId" | "request">

/** Sends a create: under the intent just written for it, or (none given) under its ref_id's intent, whatever it is. */
type Place<T> = (options?: PlaceOptions) => Promise<Placed<T>>

/** A submission whose ref_id has an intent already: its request if it waits (or waited), else the create's replay. */
async function resubmitted<T>(deps: ConsoleDeps, key: GateKey, place: Place<T>, now: Date): Promise<Submission<T> | null> {
  const intent = await intentByRef(deps.db, key.operation, key.refId)
  if (!intent) return null
  const approval = await approvalOf(deps.db, intent.id)
  if (!approval) return { kind: "placed", placed: await place() }
  if (!sameRequest(approval.request, key.request)) throw refIdReused(key.refId)
  return { kind: "request", request: await getApproval(deps.db, intent.id, now), replayed: true }
}

async function submit<T>(
  deps: ConsoleDeps,
  gate: Omit<Gate, "size" | "quote">,
  sizeOf: () => Promise<{ size: OrderSize; quote?: Gate["quote"] }>,
  place: Place<T>,
  now: Date,
): Promise<Submission<T>> {
  // A retry of a submission the console has already taken is answered from what it holds:
  // admit finds its intent before it checks any limit, and a retry that can no longer be
  // sized (its held quote has expired, say) is looked up before it is refused.
  let full: Gate
  try {
    full = { ...gate, ...(await sizeOf()) }
  } catch (error) {
    const again = await resubmitted(deps, gate, place, now)
    if (again) return again
    throw error
  }
  const admission = await admit(deps.db, full, now)
  if (admission.admitted === "send") return { kind: "placed", placed: await place({ intent: admission.intent }) }
  const existing = await resubmitted(deps, gate, place, now)
  if (!existing) throw new Error("intent vanished after it was written")
  if (admission.admitted === "request" && existing.kind === "request") {
    log.info("approval.requested", { intentId: existing.request.id, staff: gate.staff.email })
    return { ...existing, replayed: false }
  }
  return existing
}

/** The newest held quote of a market and side. */
function currentQuote(quotes: Quote[], market: string | null, side: string | null): Quote | null {
  let best: Quote | null = null
  for (const q of quotes) {
    if (q.market === market && q.side === side && (!best || q.created_at > best.created_at)) best = q
  }
  return best
}

/**
 * What an execution is sized and limited by: the held quote itself while it is the
 * current one; after that, the reviewed quote the maker saw (its market, side and price)
 * with the size taken at the current held price.
 */
function pricing(quotes: Quote[], quoteId: string, reviewed: ReviewedQuote | undefined): { size: Pick<Quote, "market" | "price">; quote: Pick<Quote, "market" | "side" | "price"> } {
  const held = quotes.find((q) => q.id === quoteId)
  if (held) return { size: held, quote: held }
  if (!reviewed) throw quoteNotCurrent()
  const current = currentQuote(quotes, reviewed.market, reviewed.side)
  if (!current) throw noHeldQuote(reviewed.side, reviewed.market)
  return { size: current, quote: reviewed }
}

/**
 * Executes a held quote, or, when the policy asks for a second person, stores it as a
 * request that waits. Limits are checked first; an order over one is refused and nothing is sent.
 */
export async function submitQuoteExecution(
  deps: ConsoleDeps,
  staff: Staff,
  profileId: string,
  input: QuoteExecutionCreate & { ref_id: string; reviewed_quote?: ReviewedQuote | undefined },
  options: ApprovalOptions,
): Promise<Submission<QuoteExecution>> {
  const now = (options.now ?? (() => new Date()))()
  const { reviewed_quote: reviewed, ...body } = input
  const request = { profile_id: profileId, ...body }
  const gate = { kind: "execution" as const, operation: "create_execution" as const, staff, profileId, refId: body.ref_id, request }
  return submit(
    deps,
    gate,
    async () => {
      const { size, quote } = pricing(await options.heldQuotes(body.quote_id), body.quote_id, reviewed)
      return { size: executionSize(body, size), quote }
    },
    (placing) => executeQuote(deps, staff, profileId, body, placing),
    now,
  )
}

/** Creates a conversion, or stores it as a request when the policy asks for a second person. */
export async function submitConversion(
  deps: ConsoleDeps,
  staff: Staff,
  body: ConversionCreate & { ref_id: string },
  options: { now?: Clock } = {},
): Promise<Submission<Conversion>> {
  const now = (options.now ?? (() => new Date()))()
  const gate = {
    kind: "conversion" as const,
    operation: "create_conversion" as const,
    staff,
    profileId: body.profile_id,
    refId: body.ref_id,
    request: body,
    upstreamApi: await deps.upstream.conversionsApi(),
  }
  return submit(deps, gate, () => Promise.resolve({ size: conversionSize(body) }), (placing) => createConversion(deps, staff, body, placing), now)
}

/** Ends every PENDING request whose time is up as EXPIRED; its intent fails, nothing was sent. */
export async function expireDue(db: Db, now: Date): Promise<number> {
  return db.transaction(async (tx) => {
    const expired = await tx
      .update(consoleApprovals)
      .set({ state: "EXPIRED", decidedAt: sql`${consoleApprovals.expiresAt}` })
      .where(and(eq(consoleApprovals.state, "PENDING"), lte(consoleApprovals.expiresAt, now)))
      .returning({ id: consoleApprovals.intentId })
    if (expired.length === 0) return 0
    await tx
      .update(consoleIntents)
      .set({
        state: "FAILED",
        problem: { ...requestExpired() },
        updatedAt: now,
        resolvedAt: now,
      })
      .where(and(inArray(consoleIntents.id, expired.map((e) => e.id)), eq(consoleIntents.state, "AWAITING_APPROVAL")))
    return expired.length
  })
}

/**
 * Moves a PENDING request to `to` in one conditional update: of two people acting at
 * once, one wins and the other is told how the request now stands.
 */
async function decide(
  db: Db,
  id: string,
  staff: Staff,
  now: Date,
  to: "REJECTED" | "WITHDRAWN",
  fields: { comment?: string | undefined; reason?: string | undefined },
  problem: Problem,
): Promise<void> {
  await db.transaction(async (tx) => {
    const [row] = await tx
      .update(consoleApprovals)
      .set({
        state: to,
        decidedAt: now,
        comment: fields.comment ?? null,
        reason: fields.reason ?? null,
        ...(to === "REJECTED" ? { checkerEmail: staff.email, checkerRole: staff.role } : {}),
      })
      .where(and(eq(consoleApprovals.intentId, id), eq(consoleApprovals.state, "PENDING")))
      .returning({ id: consoleApprovals.intentId })
    if (!row) throw await stateConflict(tx, id)
    await tx
      .update(consoleIntents)
      .set({ state: "FAILED", problem: { ...problem }, updatedAt: now, resolvedAt: now })
      .where(and(eq(consoleIntents.id, id), eq(consoleIntents.state, "AWAITING_APPROVAL")))
  })
}

async function stateConflict(db: Db, id: string): Promise<HttpProblem> {
  const current = await approvalOf(db, id)
  const state = current?.state ?? "PENDING"
  return conflict(`This request is ${state} now; someone acted on it first.`, state)
}

async function loadForAction(db: Db, id: string, now: Date): Promise<ConsoleApproval> {
  if (!isUuid(id)) throw notFound(`No approval request ${id}.`)
  await expireDue(db, now)
  const approval = await approvalOf(db, id)
  if (!approval) throw notFound(`No approval request ${id}.`)
  return approval
}

export async function rejectRequest(
  db: Db,
  staff: Staff,
  id: string,
  body: { reason: string; comment?: string | undefined },
  options: { now?: Clock } = {},
): Promise<ApprovalRequest> {
  const now = (options.now ?? (() => new Date()))()
  const approval = await loadForAction(db, id, now)
  transition(approval.state, "reject", { actor: staff, makerEmail: approval.makerEmail, now, expiresAt: approval.expiresAt, reason: body.reason })
  await decide(db, id, staff, now, "REJECTED", body, requestRejected(staff.email, body.reason))
  log.info("approval.rejected", { intentId: id, checker: staff.email })
  return getApproval(db, id, now)
}

export async function withdrawRequest(
  db: Db,
  staff: Staff,
  id: string,
  body: { comment?: string | undefined },
  options: { now?: Clock } = {},
): Promise<ApprovalRequest> {
  const now = (options.now ?? (() => new Date()))()
  const approval = await loadForAction(db, id, now)
  transition(approval.state, "withdraw", { actor: staff, makerEmail: approval.makerEmail, now, expiresAt: approval.expiresAt })
  await decide(db, id, staff, now, "WITHDRAWN", body, requestWithdrawn())
  return getApproval(db, id, now)
}

/**
 * Approves a PENDING request and sends it. An execution takes the current held quote for
 * its market and side: at or better than the limit price it is executed, otherwise the
 * request ends PRICE_MOVED and nothing is placed. Of any number of approvals at once, on
 * any number of instances, one claims the request; the others get 409.
 */
export async function approveRequest(
  deps: ConsoleDeps,
  staff: Staff,
  id: string,
  body: { comment?: string | undefined },
  options: ApprovalOptions,
): Promise<ApprovalRequest> {
  const now = (options.now ?? (() => new Date()))()
  const approval = await loadForAction(deps.db, id, now)
  transition(approval.state, "approve", { actor: staff, makerEmail: approval.makerEmail, now, expiresAt: approval.expiresAt })
  const maker: Staff = { email: approval.makerEmail, role: approval.makerRole as Staff["role"] }
  let send: Record<string, unknown> = approval.request
  let current: Quote | null = null
  if (approval.kind === "execution") {
    current = currentQuote(await options.heldQuotes(), approval.market, approval.side)
    if (!current) {
      throw quotesUnavailable(approval.side, approval.market)
    }
    send = { ...approval.request, quote_id: current.id }
  }
  const priceOk = !current || !approval.limitPrice || withinLimit(current.side, current.price, approval.limitPrice)
  await deps.db.transaction(async (tx) => {
    const [claimed] = await tx
      .update(consoleApprovals)
      .set({
        state: priceOk ? "APPROVED" : transition("APPROVED", "price_moved", { actor: staff, makerEmail: approval.makerEmail, now, expiresAt: approval.expiresAt }),
        checkerEmail: staff.email,
        checkerRole: staff.role,
        decidedAt: now,
        comment: body.comment ?? null,
        executedPrice: current?.price ?? null,
      })
      .where(and(eq(consoleApprovals.intentId, id), eq(consoleApprovals.state, "PENDING"), sql`${consoleApprovals.expiresAt} > ${now}`))
      .returning({ id: consoleApprovals.intentId })
    if (!claimed) throw await stateConflict(tx, id)
    await tx
      .update(consoleIntents)
      .set(
        priceOk
          ? { state: "PENDING", request: send, updatedAt: now }
          : {
              state: "FAILED",
              problem: { ...priceMoved(approval.side, current?.price, approval.limitPrice) },
              updatedAt: now,
              resolvedAt: now,
            },
      )
      .where(and(eq(consoleIntents.id, id), eq(consoleIntents.state, "AWAITING_APPROVAL")))
  })
  log.info("approval.approved", { intentId: id, checker: staff.email, priceMoved: !priceOk })
  if (priceOk) {
    // The same exactly-once path as any create: the intent is there, PENDING, with this request.
    const placing =
      approval.kind === "execution"
        ? executeQuote(deps, maker, String(send.profile_id), withoutProfile(send) as QuoteExecutionCreate & { ref_id: string })
        : createConversion(deps, maker, send as ConversionCreate & { ref_id: string })
    await placing.catch((error: unknown) => {
      // The intent holds the outcome (FAILED, or UNKNOWN for the reconciler); the request shows it.
      log.warn("approval.place_failed", { intentId: id, error: error instanceof Error ? error.name : "error" })
    })
  }
  return getApproval(deps.db, id, now)
}

function withoutProfile(request: Record<string, unknown>): Record<string, unknown> {
  const { profile_id: _profileId, ...rest } = request
  return rest
}

/** Who asked, who decided, when and why: the same on a request and on the intent page's story. */
export function approvalDecision(approval: ConsoleApproval): ApprovalDecision {
  return {
    maker: { email: approval.makerEmail, role: approval.makerRole },
    checker: approval.checkerEmail ? { email: approval.checkerEmail, role: approval.checkerRole ?? "" } : null,
    created_at: approval.createdAt.toISOString(),
    expires_at: approval.expiresAt.toISOString(),
    decided_at: approval.decidedAt?.toISOString() ?? null,
    comment: approval.comment,
    reason: approval.reason,
  }
}

function view(approval: ConsoleApproval, intent: ConsoleIntent): ApprovalRequest {
  const placement: ApprovalRequest["placement"] =
    approval.state !== "APPROVED"
      ? "NOT_SENT"
      : intent.state === "SUCCEEDED"
        ? "PLACED"
        : intent.state === "FAILED"
          ? "FAILED"
          : "SENDING"
  const problem = intent.problem
  return {
    id: approval.intentId,
    kind: approval.kind,
    state: approval.state,
    placement,
    ref_id: intent.refId ?? "",
    profile_id: intent.profileId,
    request: approval.request,
    size: { amount: new Decimal(approval.sizeAmount).toFixed(FIAT_DECIMALS), currency: approval.sizeCurrency },
    market: approval.market,
    side: approval.side,
    reviewed_price: approval.reviewedPrice,
    limit_price: approval.limitPrice,
    executed_price: approval.executedPrice,
    ...approvalDecision(approval),
    record_id: intent.recordId,
    record_status: intent.recordStatus,
    problem: problem
      ? { title: typeof problem.title === "string" ? problem.title : "Error", detail: typeof problem.detail === "string" ? problem.detail : null }
      : null,
  }
}

export async function getApproval(db: Db, id: string, now: Date = new Date()): Promise<ApprovalRequest> {
  if (!isUuid(id)) throw notFound(`No approval request ${id}.`)
  await expireDue(db, now)
  const [row] = await db
    .select({ approval: consoleApprovals, intent: consoleIntents })
    .from(consoleApprovals)
    .innerJoin(consoleIntents, eq(consoleIntents.id, consoleApprovals.intentId))
    .where(eq(consoleApprovals.intentId, id))
    .limit(1)
  if (!row) throw notFound(`No approval request ${id}.`)
  return view(row.approval, row.intent)
}

/** Requests, pending first (oldest first, the next to decide on top), then the rest newest first. */
export async function listApprovals(db: Db, query: ApprovalListQuery, now: Date = new Date(), viewer?: Staff): Promise<ApprovalPage> {
  await expireDue(db, now)
  const rows = await db
    .select({ approval: consoleApprovals, intent: consoleIntents })
    .from(consoleApprovals)
    .innerJoin(consoleIntents, eq(consoleIntents.id, consoleApprovals.intentId))
    .where(query.state ? eq(consoleApprovals.state, query.state) : undefined)
    .orderBy(
      sql`case when ${consoleApprovals.state} = 'PENDING' then 0 else 1 end`,
      sql`case when ${consoleApprovals.state} = 'PENDING' then ${consoleApprovals.createdAt} end asc`,
      desc(consoleApprovals.createdAt),
    )
    .limit(query.limit)
  const [count] = await db
    .select({
      n: sql<number>`count(*)::int`,
      others: sql<number>`(count(*) filter (where lower(${consoleApprovals.makerEmail}) <> lower(${viewer?.email ?? ""})))::int`,
    })
    .from(consoleApprovals)
    .where(eq(consoleApprovals.state, "PENDING"))
  return {
    items: rows.map((r) => view(r.approval, r.intent)),
    pending_count: count?.n ?? 0,
    // Those who may approve see a count of the ones they may act on: not their own.
    pending_for_you: viewer && roleAtLeast(viewer.role, "trader") ? (count?.others ?? 0) : 0,
  }
}
