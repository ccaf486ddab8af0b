import "server-only"
import { sql } from "drizzle-orm"
import type { Staff } from "@/lib/auth/roles"
import { openApprovalRequest } from "@/lib/console/approvals/decisions"
import { approvalOf, getApproval } from "@/lib/console/approvals/reads"
import { type HeldQuotes, currentQuote } from "@/lib/console/held-quotes"
import { insertAdmittedIntent, intentByRef, intentIdByRef, sameRequest } from "@/lib/console/intents"
import { refused } from "@/lib/console/refusals"
import { provenQuote } from "@/lib/console/served-quotes"
import { type ConsoleDeps, type IntentSource, type Placed, createConversion, executeQuote, intentOfRef, writtenIntent } from "@/lib/console/operations"
import {
  type Clock,
  type OrderSize,
  checkLimits,
  conversionSize,
  executionSize,
  needsApproval,
  policyFromJson,
  readPolicy,
  storedPolicyJson,
  storedPolicyVersion,
  usedTodaySum,
  usedTodayWhere,
} from "@/lib/console/policy"
import { notifyLargeOrder } from "@/lib/console/notify/orders"
import { largeOrderFromJson, storedLargeOrderJson } from "@/lib/console/notify/settings"
import { boundedTransaction } from "@/lib/db/bounded"
import type { Db } from "@/lib/db/client"
import { type ConsoleIntent, consoleIntents } from "@/lib/db/schema"
import { log } from "@/lib/log"
import { approvalRequirement, atOrOverThreshold } from "@/lib/limits"
import { type StepUp, checkStepUp, digestOf } from "@/lib/console/approvals/step-up"
import { FIAT_DECIMALS, toDecimal } from "@/lib/money"
import { noHeldQuote, quoteNotCurrent, refIdReused } from "@/lib/problem"
import type { ApprovalRequest, Assertion } from "@/lib/schemas/approvals"
import type { ConversionsApi } from "@/lib/schemas/constants"
import type { ConversionCreate } from "@/lib/schemas/conversion"
import type { QuoteExecutionCreate, ReviewedQuote } from "@/lib/schemas/quote-execution"
import type { Conversion, Quote, QuoteExecution } from "@/lib/schemas/records"
import { inDbSpan } from "@/lib/tracing"

/**
 * The submission path every create takes, approval or not: price it, admit it (its
 * ref_id's intent, the limits, whether a second person must approve it), then place it,
 * or store it as an approval request that waits. A retry of a submission the console
 * has taken is answered from what it holds.
 */

export type Submission<T> =
  | { kind: "placed"; placed: Placed<T> }
  | { kind: "request"; request: ApprovalRequest; replayed: boolean }

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
  /** The market and side the maker reviewed, for the trail when the order is refused before it is priced. */
  reviewed?: { market: string; side: string } | undefined
}

/**
 * Checks the limits and writes the intent in one transaction per staff member (so two
 * orders at once cannot both fit under one day's limit): PENDING to be sent now, or
 * AWAITING_APPROVAL with its approval row. A ref_id that has an intent already writes nothing.
 * An intent to be sent now comes back as written, for the placement to send under.
 */
async function admit(db: Db, gate: Gate, at: Date): Promise<{ admitted: "send"; intent: ConsoleIntent } | { admitted: "request" | "exists" }> {
  // Bounded as a whole: the staff lock, the limits read and the insert each wait under the
  // lock timeout, but one after another they could add up (lib/db/bounded.ts).
  return boundedTransaction(db, async (tx) => {
    // Stryker disable next-line StringLiteral: equivalent: an emptied key makes one lock for every staff member, slower but as safe (its removal shows only on Postgres: "20 orders at once by one trader", submission.test.ts).
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`console_limits:${gate.staff.email}`}))`)
    // After the lock, in one statement: an intent already under this ref_id, the policy
    // in force and what the staff member has used today.
    const [read] = await tx
      .select({
        existing: intentIdByRef(tx, gate.operation, gate.refId),
        policy: storedPolicyJson,
        policyVersion: storedPolicyVersion,
        used: usedTodaySum,
        largeOrder: storedLargeOrderJson,
      })
      .from(consoleIntents)
      .where(usedTodayWhere(gate.staff.email, gate.size.currency, at))
    // Stryker disable next-line StringLiteral: unreachable: an aggregate answers one row; the message names a broken invariant.
    if (!read) throw new Error("an aggregate answered no row")
    // A ref_id the console has taken is answered from its intent, whatever the limits say now.
    if (read.existing !== null) return { admitted: "exists" }
    const policy = policyFromJson(read.policy)
    checkLimits(policy, gate.staff, gate.size, toDecimal(read.used ?? "0"))
    const waits = needsApproval(policy, gate.kind, gate.size)
    const size = { amount: gate.size.amount.toFixed(FIAT_DECIMALS), currency: gate.size.currency }
    const intent = await insertAdmittedIntent(tx, {
      staff: gate.staff,
      operation: gate.operation,
      profileId: gate.profileId,
      refId: gate.refId,
      request: gate.request,
      upstreamApi: gate.upstreamApi,
      state: waits ? "AWAITING_APPROVAL" : "PENDING",
      size,
      at,
      quote: gate.quote,
    })
    if (!intent) return { admitted: "exists" }
    // At or over the team's large-order size: the admins hear of it with the intent, whatever comes of it.
    await notifyLargeOrder(
      tx,
      { intentId: intent.id, operation: gate.operation, makerEmail: gate.staff.email, market: intent.market, side: intent.side, request: gate.request, size: gate.size, waits },
      largeOrderFromJson(read.largeOrder),
      at,
    )
    if (!waits) return { admitted: "send", intent }
    await openApprovalRequest(tx, {
      intentId: intent.id,
      kind: gate.kind,
      maker: gate.staff,
      request: gate.request,
      size,
      quote: gate.quote,
      requirement: approvalRequirement(policy.approval_tiers, gate.size),
      policyVersion: Number(read.policyVersion),
      at,
      expiresAt: new Date(at.getTime() + policy.request_ttl_minutes * 60_000),
      tolerancePercent: policy.price_tolerance_percent,
    })
    return { admitted: "request" }
  })
}

type GateKey = Pick<Gate, "operation" | "refId" | "request">

/** Sends a create under the intent `source` gives it. */
type Place<T> = (source: IntentSource) => Promise<Placed<T>>

/** A submission whose ref_id has an intent already: its request if it waits (or waited), else the create's replay. */
async function resubmitted<T>(deps: ConsoleDeps, key: GateKey, place: Place<T>, now: Date): Promise<Submission<T> | null> {
  const intent = await intentByRef(deps.db, key.operation, key.refId)
  if (!intent) return null
  const approval = await approvalOf(deps.db, intent.id)
  if (!approval) return { kind: "placed", placed: await place(intentOfRef(deps.db, key.operation, key.refId)) }
  if (!sameRequest(approval.request, key.request)) throw refIdReused(key.refId)
  return { kind: "request", request: await getApproval(deps.db, intent.id, now), replayed: true }
}

async function submit<T>(
  deps: ConsoleDeps,
  gate: Omit<Gate, "size" | "quote">,
  sizeOf: () => Promise<{ size: OrderSize; quote?: Gate["quote"] }>,
  place: Place<T>,
  now: Date,
  stepUp?: StepUp,
): Promise<Submission<T>> {
  // A retry of a submission the console has already taken is answered from what it holds:
  // admit finds its intent before it checks any limit, and a retry that can no longer be
  // sized (its held quote has expired, say) is looked up before it is refused.
  // Whatever is refused before anything is sent goes on the audit trail.
  const refusedAs = (g: Omit<Gate, "size" | "quote"> & Partial<Pick<Gate, "size" | "quote">>, error: unknown) =>
    refused(deps.db, {
      staff: g.staff,
      operation: g.operation,
      profileId: g.profileId,
      request: g.request,
      market: g.quote?.market ?? g.reviewed?.market,
      side: g.quote?.side ?? g.reviewed?.side,
      size: g.size ? { amount: g.size.amount.toFixed(FIAT_DECIMALS), currency: g.size.currency } : null,
    }, error, now)
  let full: Gate
  try {
    full = { ...gate, ...(await sizeOf()) }
  } catch (error) {
    const again = await resubmitted(deps, gate, place, now).catch(async (e: unknown) => {
      throw await refusedAs(gate, e)
    })
    if (again) return again
    throw await refusedAs(gate, error)
  }
  // An order at or over the policy's step_up_over needs the maker's fresh passkey (STEP_UP=webauthn).
  if (stepUp?.mode === "webauthn") {
    try {
      await steppedUpToPlace(deps.db, full, stepUp, now)
    } catch (error) {
      throw await refusedAs(full, error)
    }
  }
  let admission: Awaited<ReturnType<typeof admit>>
  try {
    admission = await inDbSpan(
      "intent.write",
      async (span) => {
        const admitted = await admit(deps.db, full, now)
        span.setAttribute("console.admitted", admitted.admitted)
        return admitted
      },
      { "console.operation": gate.operation, "console.ref_id": gate.refId },
    )
  } catch (error) {
    throw await refusedAs(full, error)
  }
  if (admission.admitted === "send") return { kind: "placed", placed: await place(writtenIntent(admission.intent)) }
  // A different request under a taken ref_id is refused (on the trail); a replay's fault is
  // passed on as it is (refused() records only refusals).
  const existing = await resubmitted(deps, gate, place, now).catch(async (error: unknown) => {
    throw await refusedAs(full, error)
  })
  // Stryker disable next-line StringLiteral: unreachable: admit wrote (or found) the intent and intents are never deleted; the message names a broken invariant.
  if (!existing) throw new Error("intent vanished after it was written")
  if (admission.admitted === "request" && existing.kind === "request") {
    log.info("approval.requested", { intentId: existing.request.id, staff: gate.staff.email })
    return { ...existing, replayed: false }
  }
  return existing
}

/**
 * Step-up for an order at or over the policy's `step_up_over` in its currency: the maker's
 * passkey assertion over a challenge bound to the digest of exactly this order (its
 * operation, profile, ref_id, market, side, size, the request as sent, the policy version).
 * A ref_id the console holds already is answered from what it holds, with no new proof.
 */
async function steppedUpToPlace(db: Db, gate: Gate, stepUp: StepUp, now: Date): Promise<void> {
  const { policy, version } = await readPolicy(db)
  const over = policy.step_up_over?.[gate.size.currency as keyof NonNullable<typeof policy.step_up_over>]
  if (!atOrOverThreshold(over, gate.size)) return
  if (await intentByRef(db, gate.operation, gate.refId)) return
  const what = {
    action: "place_order",
    operation: gate.operation,
    profile_id: gate.profileId,
    ref_id: gate.refId,
    market: gate.quote?.market ?? null,
    side: gate.quote?.side ?? null,
    amount: gate.size.amount.toFixed(FIAT_DECIMALS),
    currency: gate.size.currency,
    request: gate.request,
    policy_version: version,
  }
  await checkStepUp(db, gate.staff, { what, digest: digestOf(what) }, stepUp, now)
}

/**
 * What an execution is sized and limited by: the held quote itself while it is the
 * current one; after that, the quote as the console served it to the maker (its market,
 * side and price: the reviewed quote must say the same) with the size taken at the
 * current held price. A quote the console did not serve to the maker prices nothing.
 */
function pricing(
  quotes: Quote[],
  served: { id: string; market: string; side: string; price: string },
  reviewed: ReviewedQuote | undefined,
): { size: Pick<Quote, "market" | "price">; quote: Pick<Quote, "market" | "side" | "price"> } {
  const held = quotes.find((q) => q.id.toLowerCase() === served.id.toLowerCase())
  if (held) return { size: held, quote: held }
  if (!reviewed) throw quoteNotCurrent()
  const current = currentQuote(quotes, served.market, served.side)
  if (!current) throw noHeldQuote(served.side, served.market)
  return { size: current, quote: { market: current.market, side: current.side, price: served.price } }
}

/**
 * Executes a held quote, or, when the policy asks for a second person, stores it as a
 * request that waits. The quote must be one the console served to this staff member
 * (quote_not_current otherwise). Limits are checked first; an order over one is refused
 * and nothing is sent.
 */
export async function submitQuoteExecution(
  deps: ConsoleDeps,
  staff: Staff,
  profileId: string,
  input: QuoteExecutionCreate & { ref_id: string; reviewed_quote?: ReviewedQuote | undefined; step_up?: Assertion | undefined },
  options: { heldQuotes: HeldQuotes; now?: Clock; stepUp?: StepUp | undefined },
): Promise<Submission<QuoteExecution>> {
  const now = (options.now ?? (() => new Date()))()
  const { reviewed_quote: reviewed, step_up: assertion, ...body } = input
  const request = { profile_id: profileId, ...body }
  const gate = { kind: "execution" as const, operation: "create_execution" as const, staff, profileId, refId: body.ref_id, request, reviewed }
  return submit(
    deps,
    gate,
    async () => {
      const served = await provenQuote(deps.db, staff, body.quote_id, reviewed, now)
      const { size, quote } = pricing(await options.heldQuotes(body.quote_id), { ...served, id: served.quoteId }, reviewed)
      return { size: executionSize(body, size), quote }
    },
    (source) => executeQuote(deps, staff, profileId, body, source),
    now,
    options.stepUp && { ...options.stepUp, assertion: assertion ?? options.stepUp.assertion },
  )
}

/** Creates a conversion, or stores it as a request when the policy asks for a second person. */
export async function submitConversion(
  deps: ConsoleDeps,
  staff: Staff,
  input: ConversionCreate & { ref_id: string; step_up?: Assertion | undefined },
  options: { now?: Clock; stepUp?: StepUp | undefined } = {},
): Promise<Submission<Conversion>> {
  const now = (options.now ?? (() => new Date()))()
  const { step_up: assertion, ...body } = input
  const gate = {
    kind: "conversion" as const,
    operation: "create_conversion" as const,
    staff,
    profileId: body.profile_id,
    refId: body.ref_id,
    request: body,
    upstreamApi: await deps.upstream.conversionsApi(),
  }
  return submit(
    deps,
    gate,
    () => Promise.resolve({ size: conversionSize(body) }),
    (source) => createConversion(deps, staff, body, source),
    now,
    options.stepUp && { ...options.stepUp, assertion: assertion ?? options.stepUp.assertion },
  )
}
