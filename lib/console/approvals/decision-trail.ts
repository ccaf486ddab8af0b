import "server-only"
import { desc, sql } from "drizzle-orm"
import { ZodError } from "zod"
import type { Staff } from "@/lib/auth/roles"
import { staffRef } from "@/lib/auth/staff-ref"
import type { StepUpProof } from "@/lib/console/approvals/step-up"
import type { Db } from "@/lib/db/client"
import { consoleApprovalDecisions } from "@/lib/db/schema"
import { errorKind, log } from "@/lib/log"
import { HttpProblem } from "@/lib/problem"

/**
 * Every decision attempt on approval requests and on policy changes goes on the audit trail, refused ones too:
 * who, on what, the outcome (`done` or the problem code), and its step-up (the credential,
 * user verification, the digest signed). GET /api/audit/decisions reads it.
 */

/** Decisions on approval requests, and on policy changes (lib/console/policy-changes.ts: their ids stand where request ids do). */
export type DecisionKind = "approve" | "reject" | PolicyDecisionKind
export type PolicyDecisionKind = "policy_propose" | "policy_apply" | "policy_approve" | "policy_reject" | "policy_withdraw"

export interface DecisionAttempt {
  action: DecisionKind
  intentIds: string[]
  staff: Staff
  at: Date
  /** Filled in once step-up has been checked (or found off). */
  proof: StepUpProof | null
  /** The digest of what was asked for, known before an assertion is checked. */
  digest?: string | undefined
  /** The credential an assertion was given with, recorded on a refusal too. */
  presented?: string | undefined
}

export function outcomeOf(error: unknown): string {
  if (error instanceof HttpProblem) return error.problem.code ?? `http_${error.problem.status}`
  if (error instanceof ZodError) return "validation_failed"
  return "error"
}

export async function recordDecision(db: Db, attempt: DecisionAttempt, outcome: string): Promise<void> {
  try {
    await db.insert(consoleApprovalDecisions).values({
      at: attempt.at,
      action: attempt.action,
      intentIds: attempt.intentIds,
      staffEmail: attempt.staff.email.toLowerCase(),
      staffRole: attempt.staff.role,
      outcome,
      credentialId: attempt.proof?.credentialId ?? attempt.presented?.slice(0, 200) ?? null,
      userVerified: attempt.proof?.userVerified ?? null,
      digest: attempt.proof?.digest ?? attempt.digest ?? null,
    })
  } catch (failure) {
    log.error("decision.unrecorded", { staff: staffRef(attempt.staff.email), action: attempt.action, error: errorKind(failure) })
  }
}

/** Runs a decision and records the attempt, whatever its outcome; the outcome (or error) is passed on. */
export async function recorded<T>(db: Db, attempt: DecisionAttempt, run: () => Promise<T>): Promise<T> {
  try {
    const result = await run()
    await recordDecision(db, attempt, "done")
    return result
  } catch (error) {
    await recordDecision(db, attempt, outcomeOf(error))
    throw error
  }
}

export interface DecisionEntry {
  id: string
  at: string
  action: string
  request_ids: string[]
  staff_email: string
  staff_role: string
  outcome: string
  credential_id: string | null
  user_verified: boolean | null
  digest: string | null
}

/** Decision attempts, newest first (in the order written when two share a millisecond); with `requestId`, those on that request. */
export async function listDecisions(db: Db, query: { requestId?: string | undefined; limit: number }): Promise<DecisionEntry[]> {
  const rows = await db
    .select()
    .from(consoleApprovalDecisions)
    .where(query.requestId ? sql`${consoleApprovalDecisions.intentIds} @> ${JSON.stringify([query.requestId])}::jsonb` : undefined)
    .orderBy(desc(consoleApprovalDecisions.at), desc(consoleApprovalDecisions.seq))
    .limit(query.limit)
  return rows.map((r) => ({
    id: r.id,
    at: r.at.toISOString(),
    action: r.action,
    request_ids: r.intentIds,
    staff_email: r.staffEmail,
    staff_role: r.staffRole,
    outcome: r.outcome,
    credential_id: r.credentialId,
    user_verified: r.userVerified,
    digest: r.digest,
  }))
}
