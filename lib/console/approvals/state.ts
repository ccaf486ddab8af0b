import "server-only"
import { type Staff, roleAtLeast } from "@/lib/auth/roles"
import { type Decimal, toDecimal } from "@/lib/money"
import { notAllowed, roleRequired, stateConflict, validationFailed } from "@/lib/problem"
import type { ApprovalState, ApproverRole } from "@/lib/schemas/approvals"

/**
 * Four eyes: a create at or over the policy's threshold is not sent. It is stored as an
 * intent in AWAITING_APPROVAL with an approval row beside it (same id), and is sent
 * through the same exactly-once path as any create once someone other than the maker
 * approves it. A request is an intent that waits.
 */

export type ApprovalAction = "approve" | "reject" | "withdraw" | "expire" | "price_moved" | "void"

export interface TransitionContext {
  actor: Staff | null
  makerEmail: string
  now: Date
  expiresAt: Date
  reason?: string | undefined
}

/**
 * The request state machine. PENDING → APPROVED (someone else, trader or admin) |
 * REJECTED (someone else, with a reason) | WITHDRAWN (the maker) | EXPIRED (its time is
 * up) | VOIDED (its maker lost the access to place it: removed, or a role below trader);
 * APPROVED → PRICE_MOVED (the held price is past the limit). Everything else is
 * refused: 403 for the wrong person, 400 for a missing reason, 409 for the wrong state.
 */
export function transition(state: ApprovalState, action: ApprovalAction, ctx: TransitionContext): ApprovalState {
  const isMaker = ctx.actor !== null && ctx.actor.email.toLowerCase() === ctx.makerEmail.toLowerCase()
  const expired = ctx.now.getTime() >= ctx.expiresAt.getTime()
  if (action === "price_moved") {
    if (state !== "APPROVED") throw stateConflict(`Only an approved request can end PRICE_MOVED; this one is ${state}.`, { state })
    return "PRICE_MOVED"
  }
  if (state !== "PENDING") throw stateConflict(`This request is ${state}; only a PENDING request can be changed.`, { state })
  switch (action) {
    case "expire":
      if (!expired) throw stateConflict("This request has not expired yet.", { state })
      return "EXPIRED"
    case "void":
      return "VOIDED"
    case "withdraw":
      if (!isMaker) throw notAllowed("Only the person who asked can withdraw a request.")
      if (expired) throw stateConflict("This request has expired.", { state: "EXPIRED" })
      return "WITHDRAWN"
    case "approve":
    case "reject": {
      if (!ctx.actor || !roleAtLeast(ctx.actor.role, "trader")) {
        throw roleRequired("trader", ctx.actor?.role ?? null, "Approving and rejecting need the trader or admin role.")
      }
      if (isMaker) throw notAllowed(`You asked for this ${action === "approve" ? "order; someone else must approve it" : "order; withdraw it instead of rejecting it"}.`)
      if (action === "reject" && !ctx.reason?.trim()) throw validationFailed({ reason: "give a reason for the rejection" })
      if (expired) throw stateConflict("This request has expired.", { state: "EXPIRED" })
      return action === "approve" ? "APPROVED" : "REJECTED"
    }
  }
}

/** The worst price the maker accepts: the reviewed price moved by the tolerance against them. */
export function limitPrice(side: string, price: string, tolerancePercent: string): Decimal {
  const move = toDecimal(price).mul(toDecimal(tolerancePercent)).div(100)
  return side === "BUY" ? toDecimal(price).add(move) : toDecimal(price).sub(move)
}

/** A held price is acceptable when it is at or better than the limit for the side. */
export function withinLimit(side: string, price: string, limit: string): boolean {
  return side === "BUY" ? toDecimal(price).lte(toDecimal(limit)) : toDecimal(price).gte(toDecimal(limit))
}

/** The roles that may approve or reject a request: its tier's, else a trader or an admin (the rule before tiers). */
export function approverRolesOf(approval: { approverRoles: ApproverRole[] | null }): ApproverRole[] {
  return approval.approverRoles ?? ["trader", "admin"]
}
