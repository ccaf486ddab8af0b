import "server-only"
import { and, eq, ne, sql } from "drizzle-orm"
import type { Staff } from "@/lib/auth/roles"
import { staffRef } from "@/lib/auth/staff-ref"
import { type Directory, currentRoles } from "@/lib/auth/standing"
import { type DecisionAttempt, recorded } from "@/lib/console/approvals/decision-trail"
import { endLapsed, endLapsedFor, lapsedAccess, voidLapsed } from "@/lib/console/approvals/expiry"
import { approvalOf, getApproval } from "@/lib/console/approvals/reads"
import { approverRolesOf, limitPrice, transition, withinLimit } from "@/lib/console/approvals/state"
import { type DecisionAction, type StepUp, type StepUpProof, checkStepUp, describeDecision } from "@/lib/console/approvals/step-up"
import { type HeldQuotes, currentQuote } from "@/lib/console/held-quotes"
import { failWaitingIntents, releaseApprovedIntent } from "@/lib/console/intents"
import { notifyRequestEnded, notifyRequestOpened } from "@/lib/console/notify/approvals"
import { type ConsoleDeps, createConversion, executeQuote, intentOfRef } from "@/lib/console/operations"
import { type Clock, checkLimits, policyFromJson, storedPolicyJson, usedTodaySum, usedTodayWhere } from "@/lib/console/policy"
import { boundedTransaction } from "@/lib/db/bounded"
import type { Db } from "@/lib/db/client"
import { type ConsoleApproval, consoleApprovalVotes, consoleApprovals, consoleIntents } from "@/lib/db/schema"
import type { ApprovalRequirement } from "@/lib/limits"
import { errorKind, log } from "@/lib/log"
import { toDecimal } from "@/lib/money"
import { type HttpProblem, notAllowed, notFound, priceMoved, quotesUnavailable, requestRejected, requestWithdrawn, stateConflict } from "@/lib/problem"
import type { ApprovalRequest } from "@/lib/schemas/approvals"
import { isUuid } from "@/lib/schemas/common"
import type { ConversionCreate } from "@/lib/schemas/conversion"
import type { Problem } from "@/lib/schemas/problem"
import type { QuoteExecutionCreate } from "@/lib/schemas/quote-execution"
import type { Quote } from "@/lib/schemas/records"

/**
 * Decisions on approval requests: approve (and place), reject, withdraw. Each moves a
 * PENDING request in one conditional update, with its intent in the same transaction: of
 * two people acting at once, one wins and the other is told how the request now stands.
 */

export interface ApprovalOptions {
  heldQuotes: HeldQuotes
  now?: Clock
  /** A stand-in for the staff table (tests; default: console_staff as it is now); who may still place a request is read through it. */
  directory?: Directory
  /** Step-up (STEP_UP): the routes always pass it; absent, it is off (tests of other rules). */
  stepUp?: StepUp | undefined
  /** Step-up already proven over a list holding this request (bulk approve, lib/console/approvals/bulk.ts). */
  provenBy?: StepUpProof | undefined
}

/** Step-up for a decision on `approvals` (one, or a bulk approval's list): its proof, kept on `attempt` with its digest for the trail. */
export async function steppedUp(db: Db, staff: Staff, action: DecisionAction, approvals: ConsoleApproval[], attempt: DecisionAttempt, stepUp: StepUp | undefined, now: Date): Promise<StepUpProof> {
  const decision = await describeDecision(db, action, approvals)
  attempt.digest = decision.digest
  attempt.presented = stepUp?.mode === "webauthn" ? stepUp.assertion?.id : undefined
  attempt.proof = await checkStepUp(db, staff, decision, stepUp, now)
  return attempt.proof
}

/**
 * Opens the approval request of an intent its admission has just written AWAITING_APPROVAL,
 * in the admission's transaction. An execution's request holds the reviewed price and the
 * worst price the maker accepts (the limit, the reviewed price moved by the policy's tolerance).
 */
export async function openApprovalRequest(
  tx: Db,
  input: {
    intentId: string
    kind: "execution" | "conversion"
    maker: Staff
    request: Record<string, unknown>
    size: { amount: string; currency: string }
    quote: Pick<Quote, "market" | "side" | "price"> | undefined
    /** The policy's tier for this request: how many distinct approvers, which roles (default: one, trader or admin). */
    requirement?: ApprovalRequirement | undefined
    /** The policy version it is judged under. */
    policyVersion?: number | undefined
    at: Date
    expiresAt: Date
    tolerancePercent: string
  },
): Promise<void> {
  const quote = input.quote
  // The limit keeps the quote's own precision, rounded against the maker no further.
  const limit = quote ? limitPrice(quote.side, quote.price, input.tolerancePercent).toFixed(Math.max(decimalsOf(quote.price), 2) + 4) : null
  await tx.insert(consoleApprovals).values({
    intentId: input.intentId,
    kind: input.kind,
    makerEmail: input.maker.email,
    makerRole: input.maker.role,
    createdAt: input.at,
    expiresAt: input.expiresAt,
    request: input.request,
    sizeAmount: input.size.amount,
    sizeCurrency: input.size.currency,
    market: quote?.market ?? null,
    side: quote?.side ?? null,
    reviewedPrice: quote?.price ?? null,
    limitPrice: limit,
    requiredApprovals: input.requirement?.approvers ?? 1,
    // Null is the rule before tiers (a trader or an admin); a tier's roles are kept as it names them.
    approverRoles: input.requirement?.tier ? input.requirement.roles : null,
    policyVersion: input.policyVersion ?? null,
  })
  await notifyRequestOpened(
    tx,
    {
      intentId: input.intentId,
      kind: input.kind,
      makerEmail: input.maker.email,
      market: quote?.market ?? null,
      side: quote?.side ?? null,
      sizeAmount: input.size.amount,
      sizeCurrency: input.size.currency,
      expiresAt: input.expiresAt,
      approverRoles: input.requirement?.tier ? input.requirement.roles : null,
    },
    input.at,
  )
}

function decimalsOf(value: string): number {
  const dot = value.indexOf(".")
  return dot === -1 ? 0 : value.length - dot - 1
}

/** Moves a PENDING request to REJECTED or WITHDRAWN; its intent fails, nothing was sent. */
async function decide(
  db: Db,
  id: string,
  staff: Staff,
  now: Date,
  to: "REJECTED" | "WITHDRAWN",
  fields: { comment?: string | undefined; reason?: string | undefined },
  problem: Problem,
): Promise<void> {
  await boundedTransaction(db, async (tx) => {
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
      .returning()
    if (!row) throw await actedOnFirst(tx, id)
    await failWaitingIntents(tx, [id], problem, now)
    await notifyRequestEnded(tx, { ...row, by: staff.email }, now)
  })
}

/** Why a decision on a request that was PENDING a moment ago finds it no longer so (requests are never deleted). */
async function actedOnFirst(db: Db, id: string): Promise<HttpProblem> {
  const { state, reason } = (await approvalOf(db, id))!
  if (state === "VOIDED") return voided(reason)
  return stateConflict(`This request is ${state} now; someone acted on it first.`, { state })
}

/** A VOIDED request's answer: its reason is always written with the state (lib/console/approvals/expiry.ts). */
function voided(reason: string | null): HttpProblem {
  return stateConflict(`This request was voided (${reason}); nothing was sent.`, { state: "VOIDED", reason })
}

/**
 * Refuses to place a request its maker's current limits no longer allow (a limit lowered
 * since they asked): what the admission checks, with this request itself left out of the
 * day's usage (it counts while it waits). Nothing changes; the request stays PENDING.
 */
async function withinMakersLimits(tx: Db, approval: ConsoleApproval, maker: Staff, now: Date): Promise<void> {
  // Stryker disable next-line StringLiteral: mutation runs use PGlite (one connection): the lock (as the admission's, submission.ts) shows only on Postgres, under concurrent approvals and orders.
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`console_limits:${approval.makerEmail}`}))`)
  const [read] = await tx
    .select({ policy: storedPolicyJson, used: usedTodaySum })
    .from(consoleIntents)
    .where(and(usedTodayWhere(approval.makerEmail, approval.sizeCurrency, now), ne(consoleIntents.id, approval.intentId)))
  const size = { amount: toDecimal(approval.sizeAmount), currency: approval.sizeCurrency }
  checkLimits(policyFromJson(read?.policy), maker, size, toDecimal(read?.used ?? "0"), { whose: maker.email })
}

/**
 * Refuses a checker the request's tier does not allow (its roles), and one who has approved it
 * already (approvers are distinct): before any step-up ceremony, and again under the row's lock.
 */
export async function mayDecide(db: Db, approval: ConsoleApproval, staff: Staff, action: "approve" | "reject"): Promise<void> {
  const roles = approverRolesOf(approval)
  if (!(roles as string[]).includes(staff.role)) {
    // Stryker disable next-line StringLiteral: a refusal names one role (a tier's roles are among trader and admin, and anyone with neither is refused before, role_required), so the separator never shows.
    const allowed = roles.join(" and ")
    throw notAllowed(`Only the roles ${allowed} may ${action} this request (its approval tier); your role is ${staff.role}.`)
  }
  if (action === "approve" && (await approversOf(db, approval.intentId)).includes(staff.email.toLowerCase())) throw alreadyApproved(approval)
}

function alreadyApproved(approval: Pick<ConsoleApproval, "requiredApprovals">): HttpProblem {
  return stateConflict(`You have approved this request already; it needs ${approval.requiredApprovals} different approvers.`, { state: "PENDING", already_approved: true })
}

async function approversOf(db: Db, id: string): Promise<string[]> {
  const rows = await db.select({ email: consoleApprovalVotes.staffEmail }).from(consoleApprovalVotes).where(eq(consoleApprovalVotes.intentId, id))
  return rows.map((r) => r.email)
}

export async function loadForAction(db: Db, id: string, now: Date, directory?: Directory): Promise<ConsoleApproval> {
  if (!isUuid(id)) throw notFound(`No approval request ${id}.`)
  await endLapsed(db, now, directory)
  const approval = await approvalOf(db, id)
  if (!approval) throw notFound(`No approval request ${id}.`)
  // The sweep is throttled: the request about to be decided is checked on its own, and read again once it ended (requests are never deleted).
  if (await endLapsedFor(db, approval, now, directory)) return (await approvalOf(db, id))!
  return approval
}

export async function rejectRequest(
  db: Db,
  staff: Staff,
  id: string,
  body: { reason: string; comment?: string | undefined },
  options: { now?: Clock; stepUp?: StepUp | undefined } = {},
): Promise<ApprovalRequest> {
  const now = (options.now ?? (() => new Date()))()
  const attempt: DecisionAttempt = { action: "reject", intentIds: [id], staff, at: now, proof: null }
  return recorded(db, attempt, async () => {
    const approval = await loadForAction(db, id, now)
    transition(approval.state, "reject", { actor: staff, makerEmail: approval.makerEmail, now, expiresAt: approval.expiresAt, reason: body.reason })
    await mayDecide(db, approval, staff, "reject")
    await steppedUp(db, staff, "reject", [approval], attempt, options.stepUp, now)
    await decide(db, id, staff, now, "REJECTED", body, requestRejected(staff.email, body.reason))
    log.info("approval.rejected", { intentId: id, checker: staffRef(staff.email) })
    return getApproval(db, id, now)
  })
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
 * request ends PRICE_MOVED and nothing is placed. A request whose tier needs several
 * approvers records each approval (who, when, the credential) and waits; the last required
 * one places it. Of any number of approvals at once, on any number of instances, they land
 * one after another on the request's locked row: exactly one is the last and places it,
 * one person's second approval and any after the last get 409.
 */
export async function approveRequest(
  deps: ConsoleDeps,
  staff: Staff,
  id: string,
  body: { comment?: string | undefined },
  options: ApprovalOptions,
): Promise<ApprovalRequest> {
  const now = (options.now ?? (() => new Date()))()
  const attempt: DecisionAttempt = { action: "approve", intentIds: [id], staff, at: now, proof: null }
  return recorded(deps.db, attempt, () => approveAttempt(deps, staff, id, body, options, attempt, now))
}

async function approveAttempt(
  deps: ConsoleDeps,
  staff: Staff,
  id: string,
  body: { comment?: string | undefined },
  options: ApprovalOptions,
  attempt: DecisionAttempt,
  now: Date,
): Promise<ApprovalRequest> {
  const approval = await loadForAction(deps.db, id, now, options.directory)
  if (approval.state === "VOIDED") throw voided(approval.reason)
  transition(approval.state, "approve", { actor: staff, makerEmail: approval.makerEmail, now, expiresAt: approval.expiresAt })
  // The maker as they stand now, not as they stood when they asked: removed or demoted, their request is voided.
  const role = (await currentRoles(deps.db, [approval.makerEmail], options.directory)).get(approval.makerEmail.toLowerCase()) ?? null
  if (role === null || lapsedAccess(role) !== null) {
    await voidLapsed(deps.db, now, options.directory)
    throw await actedOnFirst(deps.db, id)
  }
  const maker: Staff = { email: approval.makerEmail, role }
  await mayDecide(deps.db, approval, staff, "approve")
  const proof = options.provenBy ?? (await steppedUp(deps.db, staff, "approve", [approval], attempt, options.stepUp, now))
  attempt.proof = proof
  let send: Record<string, unknown> = approval.request
  let current: Quote | null = null
  if (approval.kind === "execution") {
    current = currentQuote(await options.heldQuotes(), approval.market, approval.side)
    if (!current) throw quotesUnavailable(approval.side, approval.market)
    send = { ...approval.request, quote_id: current.id }
  }
  // An execution's request always holds its limit (written from its quote when it was opened).
  const priceOk = !current || withinLimit(current.side, current.price, approval.limitPrice!)
  const last = await boundedTransaction(deps.db, async (tx) => {
    // The maker's limits as they are now (per order and per day), under the admission's own lock.
    await withinMakersLimits(tx, approval, maker, now)
    // The request's row, locked: approvals of one request land one after another on every
    // instance, so exactly one of them is the last required one and places it.
    const [pending] = await tx
      .select({ required: consoleApprovals.requiredApprovals })
      .from(consoleApprovals)
      .where(and(eq(consoleApprovals.intentId, id), eq(consoleApprovals.state, "PENDING"), sql`${consoleApprovals.expiresAt} > ${now}`))
      .for("update")
    if (!pending) throw await actedOnFirst(tx, id)
    const before = await approversOf(tx, id)
    if (before.includes(staff.email.toLowerCase())) throw alreadyApproved(approval)
    await tx.insert(consoleApprovalVotes).values({
      intentId: id,
      staffEmail: staff.email.toLowerCase(),
      staffRole: staff.role,
      at: now,
      credentialId: proof.credentialId,
      userVerified: proof.userVerified,
      digest: proof.digest,
      comment: body.comment ?? null,
    })
    if (before.length + 1 < pending.required) return false
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
      .returning()
    if (!claimed) throw await actedOnFirst(tx, id)
    await notifyRequestEnded(tx, { ...claimed, by: staff.email }, now)
    if (priceOk) await releaseApprovedIntent(tx, id, send, now)
    else await failWaitingIntents(tx, [id], priceMoved(approval.side, current?.price, approval.limitPrice), now)
    return true
  })
  if (!last) {
    // Not the last approval the request's tier needs: it waits for the next approver.
    log.info("approval.approved_partly", { intentId: id, checker: staffRef(staff.email) })
    return getApproval(deps.db, id, now)
  }
  log.info("approval.approved", { intentId: id, checker: staffRef(staff.email), priceMoved: !priceOk })
  if (priceOk) {
    // The same exactly-once path as any create: the intent is there, PENDING, with this request.
    const refId = String(send.ref_id)
    const placing =
      approval.kind === "execution"
        ? executeQuote(deps, maker, String(send.profile_id), withoutProfile(send) as QuoteExecutionCreate & { ref_id: string }, intentOfRef(deps.db, "create_execution", refId))
        : createConversion(deps, maker, send as ConversionCreate & { ref_id: string }, intentOfRef(deps.db, "create_conversion", refId))
    await placing.catch((error: unknown) => {
      // The intent holds the outcome (FAILED, or UNKNOWN for the reconciler); the request shows it.
      log.warn("approval.place_failed", { intentId: id, error: errorKind(error) })
    })
  }
  return getApproval(deps.db, id, now)
}

function withoutProfile(request: Record<string, unknown>): Record<string, unknown> {
  const { profile_id: _profileId, ...rest } = request
  return rest
}
