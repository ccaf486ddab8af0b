import "server-only"
import { createHash } from "node:crypto"
import { and, desc, eq, lte, ne, sql } from "drizzle-orm"
import { type Staff, roleAtLeast } from "@/lib/auth/roles"
import { staffRef } from "@/lib/auth/staff-ref"
import { activeRole, ensureStaffBootstrap } from "@/lib/auth/staff-bootstrap"
import { type DecisionAttempt, type PolicyDecisionKind, recorded } from "@/lib/console/approvals/decision-trail"
import { type StepUp, type StepUpProof, checkStepUp, digestOf } from "@/lib/console/approvals/step-up"
import { type Clock, applyPolicy, lockPolicy, readPolicy } from "@/lib/console/policy"
import { boundedTransaction } from "@/lib/db/bounded"
import type { Db } from "@/lib/db/client"
import { type ConsolePolicyChange, consolePolicy, consolePolicyChanges, consolePolicyVersions, consoleStaff } from "@/lib/db/schema"
import { log } from "@/lib/log"
import { type HttpProblem, notAllowed, notFound, policyChangeExpired, policyChangePending, policyStale, roleRequired, stateConflict, validationFailed } from "@/lib/problem"
import { DEFAULT_POLICY, type Policy, type PolicyChangeView, type PolicyChangesPage, policySchema } from "@/lib/schemas/approvals"
import { isUuid } from "@/lib/schemas/common"

/**
 * The policy under four eyes. An admin's change (PUT /api/policy) is a request: PENDING
 * until another active admin approves it with step-up (under STEP_UP=webauthn their
 * passkey signs the digest of `{action: "policy_change", change_id, policy_digest,
 * base_version}`), then applied as the next version, if the version it was made against
 * is still the one in force (else it ends STALE: 409 policy_stale). One change waits at a
 * time (a partial unique index); the maker may withdraw it, another admin may reject it,
 * and it expires after POLICY_CHANGE_TTL_MS. With no other active admin, a change applies
 * at once, with that admin's own step-up, and is flagged `single_admin` on the audit
 * trail. Every attempt, refused ones included, is on the decision trail
 * (console_approval_decisions, the change id where request ids stand).
 */

export const POLICY_CHANGE_TTL_MS = 24 * 3600_000

export type { PolicyChangeView }

function viewOf(row: ConsolePolicyChange): PolicyChangeView {
  return {
    id: row.id,
    state: row.state,
    policy: policySchema.parse(row.policy),
    policy_digest: row.policyDigest,
    base_version: row.baseVersion,
    proposed_by: row.proposedBy,
    proposed_at: row.proposedAt.toISOString(),
    expires_at: row.expiresAt.toISOString(),
    comment: row.comment,
    decided_by: row.decidedBy,
    decided_at: row.decidedAt?.toISOString() ?? null,
    reason: row.reason,
    applied_version: row.appliedVersion,
    single_admin: row.singleAdmin,
    credential_id: row.credentialId,
    user_verified: row.userVerified,
    digest: row.digest,
  }
}

/** JSON with every object's keys sorted: one policy, one text, whatever order its fields came in. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical)
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
    )
  }
  return value
}

/** The SHA-256 (hex) of a policy's canonical JSON. */
export function policyDigest(policy: Policy): string {
  return createHash("sha256").update(JSON.stringify(canonical(policy))).digest("hex")
}

/** What approving (or a single admin applying) a change authorises: exactly that policy, over that version. */
export function changeAuthorised(change: { id: string | null; policyDigest: string; baseVersion: number }, action: "policy_change" | "reject_policy_change" = "policy_change") {
  return { action, change_id: change.id, policy_digest: change.policyDigest, base_version: change.baseVersion }
}

/** The active admins on the staff table other than `email` (the demo admin counts in sandbox mode only). */
export async function otherActiveAdmins(db: Db, email: string): Promise<string[]> {
  await ensureStaffBootstrap(db)
  const rows = await db
    .select({ email: consoleStaff.email, role: consoleStaff.role, status: consoleStaff.status, source: consoleStaff.source })
    .from(consoleStaff)
    .where(and(eq(consoleStaff.role, "admin"), eq(consoleStaff.status, "active"), ne(consoleStaff.email, email.toLowerCase())))
  return rows.filter((row) => activeRole(row) === "admin").map((row) => row.email)
}

/** Ends PENDING changes whose time is up (EXPIRED); every read and decision runs it first. */
export async function expireLapsedChanges(db: Db, now: Date): Promise<void> {
  await db
    .update(consolePolicyChanges)
    .set({ state: "EXPIRED", decidedAt: now })
    .where(and(eq(consolePolicyChanges.state, "PENDING"), lte(consolePolicyChanges.expiresAt, now)))
}

/** The pending change (if any) with the policy it was made against, the version in force, and the most recent changes, newest first. */
export async function listPolicyChanges(db: Db, options: { limit: number; now?: Date }): Promise<PolicyChangesPage> {
  await expireLapsedChanges(db, options.now ?? new Date())
  const rows = await db.select().from(consolePolicyChanges).orderBy(desc(consolePolicyChanges.proposedAt), desc(consolePolicyChanges.id)).limit(options.limit)
  const [pending] = await db.select().from(consolePolicyChanges).where(eq(consolePolicyChanges.state, "PENDING")).limit(1)
  const { version } = await readPolicy(db)
  let before: Policy | null = null
  if (pending) {
    const [base] = await db.select({ policy: consolePolicyVersions.policy }).from(consolePolicyVersions).where(eq(consolePolicyVersions.version, pending.baseVersion)).limit(1)
    // Version 0 is the defaults, never saved.
    before = base ? policySchema.parse(base.policy) : DEFAULT_POLICY
  }
  return { pending: pending ? viewOf(pending) : null, pending_before: before, version, items: rows.map(viewOf) }
}

export type PolicyChangeOutcome = { kind: "pending"; change: PolicyChangeView } | { kind: "applied"; change: PolicyChangeView }

const STEP_UP_OFF: StepUp = { mode: "off", rp: { id: "localhost", name: "", origin: "http://localhost" } }

function attemptOf(action: PolicyDecisionKind, staff: Staff, id: string | null, at: Date): DecisionAttempt {
  return { action, intentIds: id ? [id] : [], staff, at, proof: null }
}

async function steppedUp(db: Db, staff: Staff, what: ReturnType<typeof changeAuthorised>, attempt: DecisionAttempt, stepUp: StepUp | undefined, now: Date): Promise<StepUpProof> {
  const digest = digestOf(what)
  attempt.digest = digest
  attempt.presented = stepUp?.mode === "webauthn" ? stepUp.assertion?.id : undefined
  attempt.proof = await checkStepUp(db, staff, { what, digest }, stepUp ?? STEP_UP_OFF, now)
  return attempt.proof
}

function mustBeAdmin(staff: Staff, what: string): void {
  if (!roleAtLeast(staff.role, "admin")) throw roleRequired("admin", staff.role, `Only an admin may ${what} a policy change; your role is ${staff.role}.`)
}

/**
 * An admin's policy change (`policy` already normalised). With another active admin: a
 * PENDING change (nothing applies yet; 409 policy_change_pending while another one waits).
 * Alone: applied at once as the next version, after this admin's own step-up, and flagged
 * `single_admin` on the audit trail.
 */
export async function proposePolicyChange(
  db: Db,
  staff: Staff,
  policy: Policy,
  options: { stepUp?: StepUp | undefined; now?: Clock; comment?: string | undefined } = {},
): Promise<PolicyChangeOutcome> {
  const now = (options.now ?? (() => new Date()))()
  mustBeAdmin(staff, "propose")
  const others = await otherActiveAdmins(db, staff.email)
  const { version } = await readPolicy(db)
  const digest = policyDigest(policy)
  if (others.length === 0) {
    const attempt = attemptOf("policy_apply", staff, null, now)
    return recorded(db, attempt, async () => {
      const proof = await steppedUp(db, staff, changeAuthorised({ id: null, policyDigest: digest, baseVersion: version }), attempt, options.stepUp, now)
      const change = await boundedTransaction(db, async (tx) => {
        await lockPolicy(tx)
        const current = await versionInForce(tx)
        // Signed over the version it read: a save in between makes the assertion's digest another one's.
        if (current !== version) throw policyStale(`The policy changed (version ${current}) since this change was made against version ${version}; review it again.`, { base_version: version, version: current })
        const applied = await applyPolicy(tx, staff, policy, now, { single_admin: true, step_up: proofFacts(proof) })
        const [row] = await tx
          .insert(consolePolicyChanges)
          .values({
            state: "APPLIED",
            policy,
            policyDigest: digest,
            baseVersion: version,
            proposedBy: staff.email.toLowerCase(),
            proposedAt: now,
            expiresAt: now,
            comment: options.comment ?? null,
            decidedBy: staff.email.toLowerCase(),
            decidedAt: now,
            appliedVersion: applied.version,
            singleAdmin: true,
            credentialId: proof.credentialId,
            userVerified: proof.userVerified,
            digest: proof.digest,
          })
          .returning()
        return row!
      })
      attempt.intentIds = [change.id]
      log.warn("policy.applied_single_admin", { changeId: change.id, version: change.appliedVersion, admin: staffRef(staff.email) })
      return { kind: "applied" as const, change: viewOf(change) }
    })
  }
  const attempt = attemptOf("policy_propose", staff, null, now)
  return recorded(db, attempt, async () => {
    await expireLapsedChanges(db, now)
    const change = await boundedTransaction(db, async (tx) => {
      const [waiting] = await tx.select({ id: consolePolicyChanges.id, by: consolePolicyChanges.proposedBy }).from(consolePolicyChanges).where(eq(consolePolicyChanges.state, "PENDING")).limit(1)
      if (waiting) throw onePending(waiting)
      const [row] = await tx
        .insert(consolePolicyChanges)
        .values({
          state: "PENDING",
          policy,
          policyDigest: digest,
          baseVersion: version,
          proposedBy: staff.email.toLowerCase(),
          proposedAt: now,
          expiresAt: new Date(now.getTime() + POLICY_CHANGE_TTL_MS),
          comment: options.comment ?? null,
        })
        .onConflictDoNothing()
        .returning()
      return row ?? null
    })
    // Two proposals at once: the unique index kept one; the other is told which.
    if (!change) {
      const [waiting] = await db.select({ id: consolePolicyChanges.id, by: consolePolicyChanges.proposedBy }).from(consolePolicyChanges).where(eq(consolePolicyChanges.state, "PENDING")).limit(1)
      throw onePending(waiting ?? { id: null, by: null })
    }
    attempt.intentIds = [change.id]
    log.info("policy.change_proposed", { changeId: change.id, baseVersion: version, admin: staffRef(staff.email) })
    return { kind: "pending" as const, change: viewOf(change) }
  })
}

function onePending(waiting: { id: string | null; by: string | null }): HttpProblem {
  return policyChangePending(`Another policy change${waiting.by ? ` (by ${waiting.by})` : ""} is waiting for a second admin; it must be approved, rejected, withdrawn or expire before a new one is proposed.`, {
    change_id: waiting.id,
  })
}

function proofFacts(proof: StepUpProof): Record<string, unknown> {
  return { credential_id: proof.credentialId, user_verified: proof.userVerified, digest: proof.digest }
}

async function versionInForce(tx: Db): Promise<number> {
  const [row] = await tx.select({ version: consolePolicy.version }).from(consolePolicy).where(eq(consolePolicy.id, 1)).limit(1)
  return row?.version ?? 0
}

/** The change to act on: 404 for none; EXPIRED (and refused) when its time is up. */
async function loadChange(db: Db, id: string, now: Date): Promise<ConsolePolicyChange> {
  if (!isUuid(id)) throw notFound(`No policy change ${id}.`)
  await expireLapsedChanges(db, now)
  const [row] = await db.select().from(consolePolicyChanges).where(eq(consolePolicyChanges.id, id)).limit(1)
  if (!row) throw notFound(`No policy change ${id}.`)
  return row
}

function notPending(row: Pick<ConsolePolicyChange, "state" | "decidedBy">): HttpProblem {
  if (row.state === "EXPIRED") return policyChangeExpired("This policy change expired before a second admin decided on it; nothing changed. Propose it again.", { state: "EXPIRED" })
  return stateConflict(`This policy change is ${row.state}${row.decidedBy ? ` (by ${row.decidedBy})` : ""}; only a PENDING change can be decided.`, { state: row.state })
}

/**
 * Another admin approves a PENDING change (with step-up): it applies as the next version
 * if its base version is still the one in force, else it ends STALE (409 policy_stale).
 * Of two approvals at once on any instances, one applies it; the other finds it no longer
 * PENDING (409 state_conflict): the change's row is claimed under the policy's lock.
 */
export async function approvePolicyChange(
  db: Db,
  staff: Staff,
  id: string,
  body: { comment?: string | undefined },
  options: { stepUp?: StepUp | undefined; now?: Clock } = {},
): Promise<PolicyChangeView> {
  const now = (options.now ?? (() => new Date()))()
  const attempt = attemptOf("policy_approve", staff, isUuid(id) ? id : null, now)
  return recorded(db, attempt, async () => {
    mustBeAdmin(staff, "approve")
    const change = await loadChange(db, id, now)
    if (change.state !== "PENDING") throw notPending(change)
    if (change.proposedBy === staff.email.toLowerCase()) throw notAllowed("You proposed this policy change; another admin must approve it (withdraw it instead).")
    const proof = await steppedUp(db, staff, changeAuthorised({ id: change.id, policyDigest: change.policyDigest, baseVersion: change.baseVersion }), attempt, options.stepUp, now)
    const outcome = await boundedTransaction(db, async (tx): Promise<{ problem: HttpProblem } | { row: ConsolePolicyChange }> => {
      await lockPolicy(tx)
      const [pending] = await tx
        .select()
        .from(consolePolicyChanges)
        .where(and(eq(consolePolicyChanges.id, id), eq(consolePolicyChanges.state, "PENDING")))
        .for("update")
      if (!pending) {
        const [now_] = await tx.select().from(consolePolicyChanges).where(eq(consolePolicyChanges.id, id)).limit(1)
        return { problem: notPending(now_ ?? change) }
      }
      if (pending.expiresAt.getTime() <= now.getTime()) {
        await tx.update(consolePolicyChanges).set({ state: "EXPIRED", decidedAt: now }).where(eq(consolePolicyChanges.id, id))
        return { problem: notPending({ state: "EXPIRED", decidedBy: null }) }
      }
      const current = await versionInForce(tx)
      if (current !== pending.baseVersion) {
        await tx
          .update(consolePolicyChanges)
          .set({ state: "STALE", decidedBy: staff.email.toLowerCase(), decidedAt: now, reason: `the policy is at version ${current} now` })
          .where(eq(consolePolicyChanges.id, id))
        return {
          problem: policyStale(`This change was made against version ${pending.baseVersion}; the policy is at version ${current} now. It ends STALE and nothing changed: propose it again against the policy in force.`, {
            base_version: pending.baseVersion,
            version: current,
            state: "STALE",
          }),
        }
      }
      const maker: Staff = { email: pending.proposedBy, role: "admin" }
      const applied = await applyPolicy(tx, maker, policySchema.parse(pending.policy), now, {
        change_id: id,
        proposed_by: pending.proposedBy,
        approved_by: staff.email.toLowerCase(),
        single_admin: false,
        step_up: proofFacts(proof),
      })
      const [row] = await tx
        .update(consolePolicyChanges)
        .set({
          state: "APPLIED",
          decidedBy: staff.email.toLowerCase(),
          decidedAt: now,
          comment: body.comment ?? pending.comment,
          appliedVersion: applied.version,
          credentialId: proof.credentialId,
          userVerified: proof.userVerified,
          digest: proof.digest,
        })
        .where(eq(consolePolicyChanges.id, id))
        .returning()
      return { row: row! }
    })
    if ("problem" in outcome) throw outcome.problem
    log.info("policy.change_applied", { changeId: id, version: outcome.row.appliedVersion, approver: staffRef(staff.email) })
    return viewOf(outcome.row)
  })
}

/** Another admin rejects a PENDING change, with a reason (and step-up); nothing applies. */
export async function rejectPolicyChange(
  db: Db,
  staff: Staff,
  id: string,
  body: { reason: string },
  options: { stepUp?: StepUp | undefined; now?: Clock } = {},
): Promise<PolicyChangeView> {
  const now = (options.now ?? (() => new Date()))()
  const attempt = attemptOf("policy_reject", staff, isUuid(id) ? id : null, now)
  return recorded(db, attempt, async () => {
    mustBeAdmin(staff, "reject")
    const change = await loadChange(db, id, now)
    if (change.state !== "PENDING") throw notPending(change)
    if (change.proposedBy === staff.email.toLowerCase()) throw notAllowed("You proposed this policy change; withdraw it instead of rejecting it.")
    if (!body.reason.trim()) throw validationFailed({ reason: "give a reason for the rejection" })
    const proof = await steppedUp(db, staff, changeAuthorised({ id: change.id, policyDigest: change.policyDigest, baseVersion: change.baseVersion }, "reject_policy_change"), attempt, options.stepUp, now)
    return settle(db, id, change, {
      state: "REJECTED",
      decidedBy: staff.email.toLowerCase(),
      decidedAt: now,
      reason: body.reason.trim(),
      credentialId: proof.credentialId,
      userVerified: proof.userVerified,
      digest: proof.digest,
    })
  })
}

/** The maker withdraws their PENDING change; nothing applies. */
export async function withdrawPolicyChange(db: Db, staff: Staff, id: string, options: { now?: Clock } = {}): Promise<PolicyChangeView> {
  const now = (options.now ?? (() => new Date()))()
  const attempt = attemptOf("policy_withdraw", staff, isUuid(id) ? id : null, now)
  return recorded(db, attempt, async () => {
    mustBeAdmin(staff, "withdraw")
    const change = await loadChange(db, id, now)
    if (change.state !== "PENDING") throw notPending(change)
    if (change.proposedBy !== staff.email.toLowerCase()) throw notAllowed("Only the admin who proposed a policy change can withdraw it; reject it instead.")
    return settle(db, id, change, { state: "WITHDRAWN", decidedBy: staff.email.toLowerCase(), decidedAt: now })
  })
}

/** Ends a PENDING change in one conditional update: of two decisions at once, one lands. */
async function settle(db: Db, id: string, change: ConsolePolicyChange, set: Partial<typeof consolePolicyChanges.$inferInsert>): Promise<PolicyChangeView> {
  const [row] = await db
    .update(consolePolicyChanges)
    .set(set)
    .where(and(eq(consolePolicyChanges.id, id), eq(consolePolicyChanges.state, "PENDING"), sql`${consolePolicyChanges.expiresAt} > ${set.decidedAt ?? new Date()}`))
    .returning()
  if (!row) {
    await expireLapsedChanges(db, set.decidedAt ?? new Date())
    const [now_] = await db.select().from(consolePolicyChanges).where(eq(consolePolicyChanges.id, id)).limit(1)
    throw notPending(now_ ?? change)
  }
  return viewOf(row)
}
