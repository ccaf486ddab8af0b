import "server-only"
import type { Staff } from "@/lib/auth/roles"
import { type DecisionAttempt, recorded } from "@/lib/console/approvals/decision-trail"
import { type ApprovalOptions, approveRequest, loadForAction, mayDecide, steppedUp } from "@/lib/console/approvals/decisions"
import { transition } from "@/lib/console/approvals/state"
import type { ConsoleDeps } from "@/lib/console/operations"
import { HttpProblem, stateConflict } from "@/lib/problem"
import type { ApprovalRequest } from "@/lib/schemas/approvals"
import type { Problem } from "@/lib/schemas/problem"

/**
 * Bulk approve: one checker approves several pending requests with one authentication.
 * Every request must be one they may approve now (else the whole list is refused and
 * nothing changes); one step-up assertion covers the digest of the whole list; then each
 * request is approved on its own, as a single approval would be (its maker's access and
 * limits, its price, exactly once), each on the trail with the list's credential and digest.
 */

export type BulkItem = { id: string; request: ApprovalRequest } | { id: string; problem: Problem }

export async function approveMany(deps: ConsoleDeps, staff: Staff, ids: string[], body: { comment?: string | undefined }, options: ApprovalOptions): Promise<{ items: BulkItem[] }> {
  const now = (options.now ?? (() => new Date()))()
  const attempt: DecisionAttempt = { action: "approve", intentIds: ids, staff, at: now, proof: null }
  return recorded(deps.db, attempt, async () => {
    const approvals = []
    for (const id of ids) {
      const approval = await loadForAction(deps.db, id, now, options.directory)
      if (approval.state === "VOIDED") throw stateConflict(`Request ${id} was voided; nothing was sent.`, { state: "VOIDED", id })
      transition(approval.state, "approve", { actor: staff, makerEmail: approval.makerEmail, now, expiresAt: approval.expiresAt })
      await mayDecide(deps.db, approval, staff, "approve")
      approvals.push(approval)
    }
    const proof = await steppedUp(deps.db, staff, "approve", approvals, attempt, options.stepUp, now)
    const items: BulkItem[] = []
    for (const id of ids) {
      try {
        items.push({ id, request: await approveRequest(deps, staff, id, body, { ...options, provenBy: proof }) })
      } catch (error) {
        if (!(error instanceof HttpProblem)) throw error
        items.push({ id, problem: error.problem })
      }
    }
    return { items }
  })
}
