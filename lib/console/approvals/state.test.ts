import { describe, expect, it } from "vitest"
import type { Staff } from "@/lib/auth/roles"
import { type ApprovalAction, limitPrice, transition, withinLimit } from "@/lib/console/approvals/state"
import type { ApprovalState } from "@/lib/schemas/approvals"
import { checker, maker, otherTrader, problemOf, support } from "@/test/approvals"

describe("the request state machine", () => {
  const now = new Date("2026-03-01T12:00:00Z")
  const later = new Date("2026-03-01T16:00:00Z")
  const ctx = (actor: Staff | null, extra: { reason?: string; at?: Date } = {}) => ({
    actor,
    makerEmail: maker.email,
    now: extra.at ?? now,
    expiresAt: later,
    reason: extra.reason,
  })

  const allowed: [ApprovalState, ApprovalAction, Staff | null, { reason?: string; at?: Date }, ApprovalState][] = [
    ["PENDING", "approve", checker, {}, "APPROVED"],
    ["PENDING", "approve", otherTrader, {}, "APPROVED"],
    ["PENDING", "reject", otherTrader, { reason: "too large today" }, "REJECTED"],
    ["PENDING", "withdraw", maker, {}, "WITHDRAWN"],
    ["PENDING", "withdraw", { ...maker, email: "TRADER@example.com" }, {}, "WITHDRAWN"],
    ["PENDING", "expire", null, { at: later }, "EXPIRED"],
    ["APPROVED", "price_moved", null, {}, "PRICE_MOVED"],
  ]
  for (const [from, action, actor, extra, to] of allowed) {
    it(`${from} --${action}${actor ? ` by ${actor.email}` : ""}--> ${to}`, () => {
      expect(transition(from, action, ctx(actor, extra))).toBe(to)
    })
  }

  const forbidden: [string, ApprovalState, ApprovalAction, Staff | null, { reason?: string; at?: Date }, number, string][] = [
    ["the maker approving their own request", "PENDING", "approve", maker, {}, 403, "not_allowed"],
    ["the maker rejecting their own request", "PENDING", "reject", maker, { reason: "x" }, 403, "not_allowed"],
    ["support approving", "PENDING", "approve", support, {}, 403, "role_required"],
    ["support rejecting", "PENDING", "reject", support, { reason: "x" }, 403, "role_required"],
    ["someone else withdrawing", "PENDING", "withdraw", checker, {}, 403, "not_allowed"],
    ["a reject without a reason", "PENDING", "reject", checker, {}, 400, "validation_failed"],
    ["a reject with a blank reason", "PENDING", "reject", checker, { reason: "   " }, 400, "validation_failed"],
    ["approving once expired", "PENDING", "approve", checker, { at: later }, 409, "state_conflict"],
    ["rejecting once expired", "PENDING", "reject", checker, { reason: "x", at: later }, 409, "state_conflict"],
    ["withdrawing once expired", "PENDING", "withdraw", maker, { at: later }, 409, "state_conflict"],
    ["expiring before its time", "PENDING", "expire", null, {}, 409, "state_conflict"],
    ["PRICE_MOVED before approval", "PENDING", "price_moved", null, {}, 409, "state_conflict"],
  ]
  for (const state of ["APPROVED", "REJECTED", "WITHDRAWN", "EXPIRED", "PRICE_MOVED"] as const) {
    forbidden.push([`approving a ${state} request`, state, "approve", checker, {}, 409, "state_conflict"])
    forbidden.push([`rejecting a ${state} request`, state, "reject", checker, { reason: "x" }, 409, "state_conflict"])
    forbidden.push([`withdrawing a ${state} request`, state, "withdraw", maker, {}, 409, "state_conflict"])
    forbidden.push([`expiring a ${state} request`, state, "expire", null, { at: later }, 409, "state_conflict"])
    if (state !== "APPROVED") forbidden.push([`PRICE_MOVED from ${state}`, state, "price_moved", null, {}, 409, "state_conflict"])
  }
  for (const [name, from, action, actor, extra, status, code] of forbidden) {
    it(`refuses ${name} with ${status} ${code}`, () => {
      let caught: unknown
      try {
        transition(from, action, ctx(actor, extra))
      } catch (error) {
        caught = error
      }
      expect(problemOf(caught).status).toBe(status)
      expect(problemOf(caught).code).toBe(code)
    })
  }

  it("each refusal tells the person why, in words", () => {
    const detail = (from: ApprovalState, action: ApprovalAction, actor: Staff | null, extra: { reason?: string; at?: Date } = {}) => {
      try {
        transition(from, action, ctx(actor, extra))
      } catch (error) {
        return problemOf(error)
      }
      throw new Error("expected a refusal")
    }
    expect(detail("PENDING", "price_moved", null)).toMatchObject({ detail: "Only an approved request can end PRICE_MOVED; this one is PENDING.", meta: { state: "PENDING" } })
    expect(detail("REJECTED", "approve", checker)).toMatchObject({ detail: "This request is REJECTED; only a PENDING request can be changed.", meta: { state: "REJECTED" } })
    expect(detail("PENDING", "expire", null)).toMatchObject({ detail: "This request has not expired yet.", meta: { state: "PENDING" } })
    expect(detail("PENDING", "withdraw", checker).detail).toBe("Only the person who asked can withdraw a request.")
    expect(detail("PENDING", "withdraw", maker, { at: later })).toMatchObject({ detail: "This request has expired.", meta: { state: "EXPIRED" } })
    expect(detail("PENDING", "approve", checker, { at: later })).toMatchObject({ detail: "This request has expired.", meta: { state: "EXPIRED" } })
    expect(detail("PENDING", "approve", support).detail).toContain("Approving and rejecting need the trader or admin role.")
    expect(detail("PENDING", "approve", null).status).toBe(403)
    expect(detail("PENDING", "approve", maker).detail).toBe("You asked for this order; someone else must approve it.")
    expect(detail("PENDING", "reject", maker, { reason: "x" }).detail).toBe("You asked for this order; withdraw it instead of rejecting it.")
    expect(detail("PENDING", "reject", checker).meta).toEqual({ fields: { reason: "give a reason for the rejection" } })
  })

  it("a request expires at its expiry time, not a millisecond later", () => {
    const justBefore = new Date(later.getTime() - 1)
    expect(transition("PENDING", "approve", ctx(checker, { at: justBefore }))).toBe("APPROVED")
    expect(transition("PENDING", "withdraw", ctx(maker, { at: justBefore }))).toBe("WITHDRAWN")
    expect(transition("PENDING", "expire", ctx(null, { at: later }))).toBe("EXPIRED")
  })

  it("the limit price sits the tolerance away from the reviewed price, against the maker", () => {
    expect(limitPrice("BUY", "100.00", "0.5").toFixed()).toBe("100.5")
    expect(limitPrice("SELL", "100.00", "0.5").toFixed()).toBe("99.5")
    expect(withinLimit("BUY", "100.50", "100.5")).toBe(true)
    expect(withinLimit("BUY", "100.51", "100.5")).toBe(false)
    expect(withinLimit("SELL", "99.5", "99.5")).toBe(true)
    expect(withinLimit("SELL", "99.49", "99.5")).toBe(false)
    expect(limitPrice("BUY", "64250.15", "0.25").toFixed()).toBe("64410.775375")
    expect(limitPrice("SELL", "200", "0").toFixed()).toBe("200")
  })
})
