import "server-only"
import { createHash } from "node:crypto"
import { and, eq, gt, lt } from "drizzle-orm"
import type { Staff } from "@/lib/auth/roles"
import type { Db } from "@/lib/db/client"
import { consoleApprovals, consoleBalanceSnapshots } from "@/lib/db/schema"
import { type HistoricCreate, insertHistoricCreates } from "@/lib/console/intents"
import { OBSERVED_WITHIN_MS } from "@/lib/console/statements/statement"
import { historyExists } from "@/lib/problem"
import type { HistoryAnswer, HistoryRecord, HistoryRequest, SandboxHistoryAnswer } from "@/lib/schemas/sandbox-history"
import { type UpstreamClient, isUpstreamError } from "@/lib/upstream"

/**
 * The console's half of "generate a past week" (POST /api/sandbox/history): the sandbox
 * writes the week's records (POST /sandbox/admin/history); the console then writes what
 * it would have written itself over that week, in one transaction:
 * - a balance snapshot at each of the 8 cutoffs (days + 1) (taken by "sandbox-history"; a cutoff that
 *   has one already keeps it, except today's when the job read it too late to observe the
 *   cutoff: that one keeps its balances and time, without the cutoff);
 * - the intents of the records its desk placed (about 4 in 5 of the executions, conversions
 *   and orchestrations, by four staff; the rest read "placed elsewhere"), SUCCEEDED and
 *   settled, each under the record's ref_id; the larger trades through an approval
 *   request (10,000 and up, the default policy's threshold), approved by a second person.
 * Refused (409 `history_exists`, nothing written) when a snapshot was read before today's
 * cutoff, or the sandbox has records before it.
 */

/** The generated desk: example.com addresses, never a real person's. */
export const HISTORY_TRADERS: readonly Staff[] = [
  { email: "maya.chen@example.com", role: "trader" },
  { email: "tom.okafor@example.com", role: "trader" },
  { email: "ines.duarte@example.com", role: "trader" },
]
export const HISTORY_CHECKER: Staff = { email: "sam.keller@example.com", role: "admin" }
/** A create at or above this size (in its fiat currency) went through an approval: the default policy's threshold. */
const APPROVAL_AT = "10000"
export const HISTORY_SNAPSHOT_BY = "sandbox-history"

function draw(...parts: readonly (string | number)[]): number {
  return createHash("sha256").update(parts.join("\u001f")).digest().readUIntBE(0, 6) / 2 ** 48
}

const at = (iso: string, deltaMs = 0) => new Date(Date.parse(iso) + deltaMs)

function intentOf(record: HistoryRecord, maker: Staff): HistoricCreate {
  const common = {
    staffEmail: maker.email,
    staffRole: maker.role,
    profileId: record.profile_id,
    refId: record.ref_id,
    state: "SUCCEEDED" as const,
    attempts: 1,
    recordId: record.id,
    createdAt: at(record.created_at, -400),
    updatedAt: at(record.created_at),
    resolvedAt: at(record.created_at),
    recordFinalAt: at(record.settled_at, 1_000),
  }
  if (record.kind === "execution") {
    const quoteAsset = record.market.slice(-3)
    return {
      ...common,
      operation: "create_execution",
      request: { profile_id: record.profile_id, quote_id: record.quote_id, base_amount: record.base_amount, ref_id: record.ref_id },
      sizeAmount: record.quote_amount,
      sizeCurrency: quoteAsset,
      market: record.market,
      side: record.side,
      recordStatus: "CREATED",
      recordFinalStatus: "SETTLED",
    }
  }
  const request: Record<string, unknown> = {
    profile_id: record.profile_id,
    amount: record.amount,
    source_asset: record.source_asset,
    target_asset: record.target_asset,
    ref_id: record.ref_id,
  }
  if (record.kind === "orchestration") request.recipient_profile_id = record.recipient_profile_id
  return {
    ...common,
    operation: "create_conversion",
    request,
    upstreamApi: record.kind === "orchestration" ? "orchestrations" : "stablecoin-conversions",
    sizeAmount: record.amount,
    sizeCurrency: "USD",
    recordStatus: record.kind === "orchestration" ? "PROCESSING" : "CREATED",
    recordFinalStatus: record.kind === "orchestration" ? "COMPLETED" : "SETTLED",
  }
}

/** The intents (and approvals) of the records the generated desk placed. */
export function historicCreates(answer: SandboxHistoryAnswer): { intents: HistoricCreate[]; approvals: (typeof consoleApprovals.$inferInsert)[] } {
  const intents: HistoricCreate[] = []
  const approvals: (typeof consoleApprovals.$inferInsert)[] = []
  for (const record of answer.records) {
    if (draw("history-placed", answer.seed, record.id) >= 0.8) continue
    const maker = HISTORY_TRADERS[Math.floor(draw("history-maker", answer.seed, record.id) * HISTORY_TRADERS.length)]!
    const intent = intentOf(record, maker)
    const needsApproval = compareAmounts(intent.sizeAmount ?? "0", APPROVAL_AT) >= 0
    if (needsApproval) {
      // Asked for a few minutes before it was placed; placed the moment the checker approved.
      const asked = at(record.created_at, -(120_000 + Math.floor(draw("history-asked", answer.seed, record.id) * 480_000)))
      const id = hashedId("history-intent", answer.seed, record.id)
      intents.push({ ...intent, id, createdAt: asked })
      approvals.push({
        intentId: id,
        kind: record.kind === "execution" ? "execution" : "conversion",
        state: "APPROVED",
        makerEmail: maker.email,
        makerRole: maker.role,
        createdAt: asked,
        expiresAt: at(asked.toISOString(), 30 * 60_000),
        request: intent.request,
        sizeAmount: intent.sizeAmount ?? "0",
        sizeCurrency: intent.sizeCurrency ?? "USD",
        market: intent.market ?? null,
        side: intent.side ?? null,
        reviewedPrice: record.kind === "execution" ? record.price : null,
        limitPrice: record.kind === "execution" ? record.price : null,
        checkerEmail: HISTORY_CHECKER.email,
        checkerRole: HISTORY_CHECKER.role,
        decidedAt: at(record.created_at, -300),
        comment: "Within the desk's limits",
        executedPrice: record.kind === "execution" ? record.price : null,
      })
    } else {
      intents.push(intent)
    }
  }
  return { intents, approvals }
}

/** Compares two unsigned decimal strings without turning either into a JS number. */
function compareAmounts(a: string, b: string): number {
  const [ai = "", af = ""] = a.split(".")
  const [bi = "", bf = ""] = b.split(".")
  const ia = ai.replace(/^0+/, "")
  const ib = bi.replace(/^0+/, "")
  if (ia.length !== ib.length) return ia.length - ib.length
  if (ia !== ib) return ia < ib ? -1 : 1
  const width = Math.max(af.length, bf.length)
  const fa = af.padEnd(width, "0")
  const fb = bf.padEnd(width, "0")
  return fa === fb ? 0 : fa < fb ? -1 : 1
}

function hashedId(...parts: readonly (string | number)[]): string {
  const h = createHash("sha256").update(parts.join("\u001f")).digest("hex")
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`
}

export async function generateSandboxHistory(
  deps: { db: Db; upstream: Pick<UpstreamClient, "sandboxHistory"> },
  input: HistoryRequest,
  now: Date = new Date(),
): Promise<HistoryAnswer> {
  const { db, upstream } = deps
  const cutoff = new Date(Math.floor(now.getTime() / 86_400_000) * 86_400_000)
  const [earlier] = await db
    .select({ takenAt: consoleBalanceSnapshots.takenAt })
    .from(consoleBalanceSnapshots)
    .where(lt(consoleBalanceSnapshots.takenAt, cutoff))
    .limit(1)
  if (earlier) {
    throw historyExists(`a balance snapshot was read at ${earlier.takenAt.toISOString()}, before today's cutoff: a past week is generated only on a sandbox with no past, once`)
  }
  let answer: SandboxHistoryAnswer
  try {
    answer = await upstream.sandboxHistory({ ...input, seed: input.seed ?? 1 })
  } catch (error) {
    if (isUpstreamError(error) && "status" in error && error.status === 409) throw historyExists(error.message.replace(/^409 [^:]*: /, ""))
    throw error
  }
  const { intents, approvals } = historicCreates(answer)
  let snapshots = 0
  await db.transaction(async (tx) => {
    // Today's cutoff may have its snapshot already, taken by the job at start: read too late
    // to observe the cutoff (more than 15 minutes after it), it stays an observation of its
    // own moment only (no cutoff), and the generated week's end, known exactly, takes the cutoff.
    const today = consoleBalanceSnapshots
    await tx
      .update(today)
      .set({ cutoff: null })
      .where(and(eq(today.cutoff, new Date(answer.to)), gt(today.takenAt, new Date(Date.parse(answer.to) + OBSERVED_WITHIN_MS))))
    for (const c of answer.cutoffs) {
      const when = new Date(c.cutoff)
      const stored = await tx
        .insert(consoleBalanceSnapshots)
        .values({ cutoff: when, takenAt: when, takenBy: HISTORY_SNAPSHOT_BY, balances: c.balances })
        .onConflictDoNothing()
        .returning({ id: consoleBalanceSnapshots.id })
      snapshots += stored.length
    }
    await insertHistoricCreates(tx, intents)
    await insertHistoricApprovals(tx, approvals)
  })
  return {
    seed: answer.seed,
    from: answer.from,
    to: answer.to,
    counts: { ...answer.counts, console_placed: intents.length, approvals: approvals.length, snapshots },
  }
}

/** Approval requests of a generated sandbox week, already decided (APPROVED), in the caller's transaction. */
async function insertHistoricApprovals(tx: Db, rows: readonly (typeof consoleApprovals.$inferInsert)[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 500) await tx.insert(consoleApprovals).values(rows.slice(i, i + 500))
}
