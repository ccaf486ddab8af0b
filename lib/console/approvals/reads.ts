import "server-only"
import { asc, desc, eq, inArray, sql } from "drizzle-orm"
import { type Staff, roleAtLeast } from "@/lib/auth/roles"
import { endLapsed, endLapsedFor } from "@/lib/console/approvals/expiry"
import { problemSummary } from "@/lib/console/audit"
import { approverRolesOf } from "@/lib/console/approvals/state"
import type { Db } from "@/lib/db/client"
import { type ConsoleApproval, type ConsoleIntent, consoleApprovalVotes, consoleApprovals, consoleIntents } from "@/lib/db/schema"
import { Decimal, FIAT_DECIMALS } from "@/lib/money"
import { notFound } from "@/lib/problem"
import type { ApprovalDecision, ApprovalListQuery, ApprovalPage, ApprovalRequest } from "@/lib/schemas/approvals"
import { APPROVALS_LIST_LIMIT } from "@/lib/schemas/constants"
import { isUuid } from "@/lib/schemas/common"

/** Approval requests as people read them: one, a page of them, and who decided what. */

export async function approvalOf(db: Db, id: string): Promise<ConsoleApproval | null> {
  const [row] = await db.select().from(consoleApprovals).where(eq(consoleApprovals.intentId, id)).limit(1)
  return row ?? null
}

/** Who asked, who decided, when and why: the same on a request and on the intent page's story. */
export function approvalDecision(approval: ConsoleApproval): ApprovalDecision {
  return {
    maker: { email: approval.makerEmail, role: approval.makerRole },
    // Stryker disable next-line StringLiteral: equivalent: a checker's email and role are written together (decisions.ts), so the fallback, there for the column's type, is never read
    checker: approval.checkerEmail ? { email: approval.checkerEmail, role: approval.checkerRole ?? "" } : null,
    created_at: approval.createdAt.toISOString(),
    expires_at: approval.expiresAt.toISOString(),
    decided_at: approval.decidedAt?.toISOString() ?? null,
    comment: approval.comment,
    reason: approval.reason,
  }
}

type Given = ApprovalRequest["approvals"]["given"]

/** The approvals given to each of `ids`, oldest first. */
async function givenTo(db: Db, ids: string[]): Promise<Map<string, Given>> {
  const byId = new Map<string, Given>()
  const rows = await db.select().from(consoleApprovalVotes).where(inArray(consoleApprovalVotes.intentId, ids)).orderBy(asc(consoleApprovalVotes.at))
  for (const r of rows) {
    const list = byId.get(r.intentId) ?? []
    list.push({ email: r.staffEmail, role: r.staffRole, at: r.at.toISOString(), credential_id: r.credentialId, user_verified: r.userVerified })
    byId.set(r.intentId, list)
  }
  return byId
}

function view(approval: ConsoleApproval, intent: ConsoleIntent, given: Given): ApprovalRequest {
  const placement: ApprovalRequest["placement"] =
    approval.state !== "APPROVED"
      ? "NOT_SENT"
      : intent.state === "SUCCEEDED"
        ? "PLACED"
        : intent.state === "FAILED"
          ? "FAILED"
          : "SENDING"
  // As the intent's story on the trail shows it (its title and detail).
  const problem = problemSummary(intent.problem)
  return {
    id: approval.intentId,
    kind: approval.kind,
    state: approval.state,
    placement,
    // Stryker disable next-line StringLiteral: equivalent: an order's intent has a ref_id unless REFUSED (console_intents' check), and a refusal is written as an intent of its own, never one with a request
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
    approvals: { required: approval.requiredApprovals, roles: approverRolesOf(approval), given },
    policy_version: approval.policyVersion,
    record_id: intent.recordId,
    record_status: intent.recordStatus,
    problem: problem && { title: problem.title, detail: problem.detail },
  }
}

export async function getApproval(db: Db, id: string, now: Date = new Date()): Promise<ApprovalRequest> {
  // Read twice when the first read ends it; a request is never deleted, so only an id that
  // names none (or is no uuid) is not found.
  const read = async () => {
    const [row] = isUuid(id)
      ? await db
          .select({ approval: consoleApprovals, intent: consoleIntents })
          .from(consoleApprovals)
          .innerJoin(consoleIntents, eq(consoleIntents.id, consoleApprovals.intentId))
          .where(eq(consoleApprovals.intentId, id))
          .limit(1)
      : []
    if (!row) throw notFound(`No approval request ${id}.`)
    return row
  }
  let row = await read()
  // One request: checked on its own (expired, or its maker lapsed), not by the throttled sweep.
  if (await endLapsedFor(db, row.approval, now)) row = await read()
  return view(row.approval, row.intent, (await givenTo(db, [id])).get(id) ?? [])
}

/**
 * The /approvals page's list as GET /api/approvals?limit=100 answers `viewer`: what the page
 * polls, and what the stream's `approval_list` topic pushes to that person.
 */
export function listApprovalsPage(db: Db, viewer: Staff, now: Date = new Date()): Promise<ApprovalPage> {
  return listApprovals(db, { limit: APPROVALS_LIST_LIMIT }, now, viewer)
}

/** Requests, pending first (oldest first, the next to decide on top), then the rest newest first; made at one instant, by the order they were made. */
export async function listApprovals(db: Db, query: ApprovalListQuery, now: Date, viewer: Staff): Promise<ApprovalPage> {
  await endLapsed(db, now)
  const rows = await db
    .select({ approval: consoleApprovals, intent: consoleIntents })
    .from(consoleApprovals)
    .innerJoin(consoleIntents, eq(consoleIntents.id, consoleApprovals.intentId))
    .where(query.state ? eq(consoleApprovals.state, query.state) : undefined)
    .orderBy(
      sql`case when ${consoleApprovals.state} = 'PENDING' then 0 else 1 end`,
      sql`case when ${consoleApprovals.state} = 'PENDING' then ${consoleApprovals.createdAt} end asc`,
      // Requests made at the same instant: in the order their intents were made (the first made
      // is the older), so the list keeps one order from one read to the next.
      sql`case when ${consoleApprovals.state} = 'PENDING' then ${consoleIntents.seq} end asc`,
      desc(consoleApprovals.createdAt),
      desc(consoleIntents.seq),
    )
    .limit(query.limit)
  const [count] = await db
    .select({
      n: sql<number>`count(*)::int`,
      // Not their own, their role among those the tier allows, not approved by them already.
      others: sql<number>`(count(*) filter (where lower(${consoleApprovals.makerEmail}) <> lower(${viewer.email})
        and (${consoleApprovals.approverRoles} is null or ${consoleApprovals.approverRoles} ? ${viewer.role})
        and not exists (select 1 from console_approval_votes v where v.intent_id = console_approvals.intent_id and v.staff_email = lower(${viewer.email}))))::int`,
    })
    .from(consoleApprovals)
    .where(eq(consoleApprovals.state, "PENDING"))
  const given = await givenTo(
    db,
    rows.map((r) => r.approval.intentId),
  )
  return {
    items: rows.map((r) => view(r.approval, r.intent, given.get(r.approval.intentId) ?? [])),
    pending_count: count?.n ?? 0,
    // Those who may approve see a count of the ones they may act on.
    pending_for_you: roleAtLeast(viewer.role, "trader") ? (count?.others ?? 0) : 0,
  }
}
