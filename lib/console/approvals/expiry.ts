import "server-only"
import { and, eq, lte, sql } from "drizzle-orm"
import { type Role, roleAtLeast } from "@/lib/auth/roles"
import { staffRef } from "@/lib/auth/staff-ref"
import { type Directory, currentRoles, standingVersion } from "@/lib/auth/standing"
import { transition } from "@/lib/console/approvals/state"
import { failWaitingIntents } from "@/lib/console/intents"
import { notifyRequestEnded } from "@/lib/console/notify/approvals"
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
      .returning()
    // Nothing due (most sweeps): no update of no intents.
    if (expired.length === 0) return 0
    await failWaitingIntents(
      tx,
      expired.map((e) => e.intentId),
      requestExpired(),
      now,
    )
    for (const row of expired) await notifyRequestEnded(tx, { ...row, by: null }, now)
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
export async function voidLapsed(db: Db, now: Date, directory?: Directory): Promise<void> {
  const makers = await db
    .selectDistinct({ email: consoleApprovals.makerEmail })
    .from(consoleApprovals)
    .where(eq(consoleApprovals.state, "PENDING"))
  const roles = await currentRoles(
    db,
    makers.map((m) => m.email),
    directory,
  )
  for (const { email } of makers) {
    const reason = lapsedAccess(roles.get(email.toLowerCase()) ?? null)
    if (reason) await voidRequestsOf(db, email, reason, now)
  }
}

/** Voids `makerEmail`'s PENDING requests; true when there was one (a decision may have claimed it first). */
async function voidRequestsOf(db: Db, makerEmail: string, reason: string, now: Date): Promise<boolean> {
  const state = transition("PENDING", "void", { actor: null, makerEmail, now, expiresAt: now })
  const voided = await boundedTransaction(db, async (tx) => {
    const rows = await tx
      .update(consoleApprovals)
      .set({ state, decidedAt: now, reason })
      .where(and(eq(consoleApprovals.makerEmail, makerEmail), eq(consoleApprovals.state, "PENDING")))
      .returning()
    // None left (claimed by a decision since it was read): no update of no intents.
    if (rows.length > 0) await failWaitingIntents(tx, rows.map((r) => r.intentId), requestVoided(reason), now)
    for (const row of rows) await notifyRequestEnded(tx, { ...row, by: null }, now)
    return rows.length
  })
  if (voided > 0) log.warn("approval.voided", { maker: staffRef(makerEmail), reason, requests: voided })
  return voided > 0
}

/** endLapsed's sweep runs at most this often per instance (reads and notification polls call it constantly). */
export const END_LAPSED_EVERY_MS = 5000

/** Per database: when this instance last swept, and the sweep under way (callers meanwhile join it). */
// On globalThis: the build gives route handlers their own copies of a module; one throttle per instance.
interface Sweep {
  at: number
  /** standingVersion() when it ran: a change of someone's standing seen here since sweeps again at once. */
  standing: number
  running: Promise<void> | null
}
const sweeps = ((globalThis as unknown as { __consoleLapsedSweeps?: WeakMap<Db, Sweep> }).__consoleLapsedSweeps ??= new WeakMap())

/**
 * Before any read or decision: requests whose time is up expire, and those whose maker lost
 * access are voided. At most every END_LAPSED_EVERY_MS per instance (a caller meanwhile
 * joins the sweep under way, or goes on): a list may show a request PENDING for a few
 * seconds past its end, never act on it. A decision does not rely on this sweep:
 * `endLapsedFor` checks the one request it acts on (and approval re-reads its maker's role
 * and claims only an unexpired request).
 */
export async function endLapsed(db: Db, now: Date, directory?: Directory): Promise<void> {
  let sweep = sweeps.get(db)
  if (!sweep) sweeps.set(db, (sweep = { at: Number.NEGATIVE_INFINITY, standing: -1, running: null }))
  if (sweep.running) return sweep.running
  const t = now.getTime()
  // A clock that went back (a test's, or the machine's) sweeps again rather than waiting.
  if (t >= sweep.at && t - sweep.at < END_LAPSED_EVERY_MS && sweep.standing === standingVersion()) return
  sweep.at = t
  sweep.standing = standingVersion()
  const state = sweep
  const running = (async () => {
    await expireDue(db, now)
    await voidLapsed(db, now, directory)
  })()
  state.running = running
  try {
    await running
  } catch (error) {
    // A failed sweep is tried again by the next caller.
    state.at = Number.NEGATIVE_INFINITY
    throw error
  } finally {
    state.running = null
  }
}

/**
 * The check that protects a decision: the one request about to be decided, if PENDING,
 * is expired when its time is up and voided when its maker lost access, whatever the
 * throttled sweep last did. True when it ended it.
 */
export async function endLapsedFor(
  db: Db,
  approval: { state: string; expiresAt: Date; makerEmail: string },
  now: Date,
  directory?: Directory,
): Promise<boolean> {
  if (approval.state !== "PENDING") return false
  if (approval.expiresAt.getTime() <= now.getTime()) return (await expireDue(db, now)) > 0
  const role = (await currentRoles(db, [approval.makerEmail], directory)).get(approval.makerEmail.toLowerCase()) ?? null
  const reason = lapsedAccess(role)
  return reason ? voidRequestsOf(db, approval.makerEmail, reason, now) : false
}
