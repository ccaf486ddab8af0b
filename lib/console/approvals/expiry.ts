import "server-only"
import { and, eq, lte, sql } from "drizzle-orm"
import { type Role, roleAtLeast } from "@/lib/auth/roles"
import { staffRef } from "@/lib/auth/staff-ref"
import { type Directory, currentRoles } from "@/lib/auth/standing"
import { transition } from "@/lib/console/approvals/state"
import { failWaitingIntents } from "@/lib/console/intents"
import { boundedTransaction } from "@/lib/db/bounded"
import type { Db } from "@/lib/db/client"
import { consoleApprovals } from "@/lib/db/schema"
import { log } from "@/lib/log"
import { requestExpired, requestVoided } from "@/lib/problem"

/**
 * Ends every PENDING request whose time is up as EXPIRED; its intent fails, nothing was
 * sent. Run before every read and every decision, so no one sees or acts on a request
 * whose time is up.
 */
export async function expireDue(db: Db, now: Date): Promise<number> {
  return boundedTransaction(db, async (tx) => {
    const expired = await tx
      .update(consoleApprovals)
      .set({ state: "EXPIRED", decidedAt: sql`${consoleApprovals.expiresAt}` })
      .where(and(eq(consoleApprovals.state, "PENDING"), lte(consoleApprovals.expiresAt, now)))
      .returning({ id: consoleApprovals.intentId })
    if (expired.length === 0) return 0
    await failWaitingIntents(
      tx,
      expired.map((e) => e.id),
      requestExpired(),
      now,
    )
    return expired.length
  })
}

/** Why a maker with this role (null: no longer on the staff) may not have their request placed; null when they may. */
export function lapsedAccess(role: Role | null): string | null {
  if (role === null) return "the maker is no longer on the staff"
  if (!roleAtLeast(role, "trader")) return `the maker's role is now ${role}, and placing an order needs trader or admin`
  return null
}

/**
 * Voids the PENDING requests of makers who lost the access to place them (removed from
 * the staff, or now below trader): each ends VOIDED with the reason, its intent fails,
 * nothing is ever sent. One conditional update per maker, so an approval racing it on
 * another instance either claimed the request first or finds it VOIDED.
 */
export async function voidLapsed(db: Db, now: Date, directory?: Directory): Promise<number> {
  const makers = await db
    .selectDistinct({ email: consoleApprovals.makerEmail })
    .from(consoleApprovals)
    .where(eq(consoleApprovals.state, "PENDING"))
  if (makers.length === 0) return 0
  const roles = await currentRoles(
    db,
    makers.map((m) => m.email),
    directory,
  )
  let voided = 0
  for (const { email } of makers) {
    const reason = lapsedAccess(roles.get(email.toLowerCase()) ?? null)
    if (reason) voided += await voidRequestsOf(db, email, reason, now)
  }
  return voided
}

async function voidRequestsOf(db: Db, makerEmail: string, reason: string, now: Date): Promise<number> {
  const state = transition("PENDING", "void", { actor: null, makerEmail, now, expiresAt: now })
  const ids = await boundedTransaction(db, async (tx) => {
    const rows = await tx
      .update(consoleApprovals)
      .set({ state, decidedAt: now, reason })
      .where(and(eq(consoleApprovals.makerEmail, makerEmail), eq(consoleApprovals.state, "PENDING")))
      .returning({ id: consoleApprovals.intentId })
    if (rows.length > 0) await failWaitingIntents(tx, rows.map((r) => r.id), requestVoided(reason), now)
    return rows.map((r) => r.id)
  })
  if (ids.length > 0) log.warn("approval.voided", { maker: staffRef(makerEmail), reason, requests: ids.length })
  return ids.length
}

/** Before any read or decision: requests whose time is up expire, and those whose maker lost access are voided. */
export async function endLapsed(db: Db, now: Date, directory?: Directory): Promise<void> {
  await expireDue(db, now)
  await voidLapsed(db, now, directory)
}
