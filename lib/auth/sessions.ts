import "server-only"
import { and, asc, desc, eq, gte, lt, or } from "drizzle-orm"
import { type Role, type Staff } from "@/lib/auth/roles"
import { activeRole, ensureStaffBootstrap } from "@/lib/auth/staff-bootstrap"
import { standingChanged } from "@/lib/auth/standing"
import type { Db } from "@/lib/db/client"
import { isDatabaseUnavailable } from "@/lib/db/unavailable"
import { env } from "@/lib/env"
import { type ConsoleSession, consoleAuthEvents, consoleSessions, consoleStaff } from "@/lib/db/schema"
import { log } from "@/lib/log"
import { inDbSpan } from "@/lib/tracing"

/** Idle sign-out: a session ends this long after its last request (SESSION_IDLE_MINUTES, 30 by default). */
export function sessionIdleS(): number {
  return env().sessionIdleS
}
/** Absolute lifetime of a sign-in, whatever the activity. */
export const SESSION_ABSOLUTE_S = 8 * 60 * 60
/**
 * How long an instance trusts what it last read of a session. A session ended on another
 * instance (or a row deleted by hand) stops here within this time.
 */
export const SESSION_RECHECK_MS = 2000
/** While the database is not answering, a session seen valid this recently is still trusted. */
export const SESSION_UNAVAILABLE_GRACE_MS = 60_000
/**
 * How long a request waits for the database to re-check a session it may still trust (seen
 * valid within the grace): past it the request goes on as that staff member and the read
 * finishes on its own, updating what is remembered. A database out of free connections
 * would otherwise hold each such request for the whole connect timeout before the grace
 * applied (issue 34's replay: 2 s of a create's answer, up to 3.2 s for /api/quotes).
 */
export const SESSION_SLOW_MS = 500
/** last_seen_at is written at most this often per session. */
const TOUCH_EVERY_MS = 60_000
const SWEEP_EVERY_MS = 60_000
const MAX_CACHED = 10_000

/** credentials: a password; passkey: a discoverable passkey; oidc: single sign-on. */
export type SessionProvider = "credentials" | "passkey" | "oidc"

export type AuthEventKind =
  | "signed_in"
  | "signed_out"
  | "session_ended"
  | "session_expired"
  | "sign_in_failed"
  | "locked_out"
  | "lockout_ended"
  | "session_end_refused"
  // Staff changes (lib/auth/staff.ts): detail holds before, after and the outcome (done, or the refusal's code).
  | "staff_invited"
  | "staff_changed"
  | "staff_removed"
  | "invitation_withdrawn"
  | "invitation_accepted"
  | "sign_in_rules_changed"

export async function recordAuthEvent(
  db: Db,
  event: { kind: AuthEventKind; email?: string | null; actor?: string | null; sessionId?: string | null; address?: string | null; detail?: Record<string, unknown> },
): Promise<void> {
  // A single sign-on (or a refused one) is what a maker's standing is read from.
  standingChanged()
  await db.insert(consoleAuthEvents).values({
    kind: event.kind,
    email: event.email ?? null,
    actor: event.actor ?? null,
    sessionId: event.sessionId ?? null,
    address: event.address ?? null,
    detail: event.detail ?? null,
  })
}

interface Checked {
  staff: Staff | null
  checkedAt: number
}

const globalForSessions = globalThis as unknown as {
  __consoleSessionCache?: Map<string, Checked>
  __consoleSessionsEnded?: Set<string>
  __consoleSessionSwept?: number
}
const cache = (globalForSessions.__consoleSessionCache ??= new Map<string, Checked>())
/**
 * Sessions this instance ended. An ended session never comes back (its row is gone, its id
 * is never reused), so a read of it that began before the end, answering late, cannot let
 * it through again, and no request after the end waits on that read.
 */
const ended = (globalForSessions.__consoleSessionsEnded ??= new Set<string>())

/** Keeps a per-instance record under MAX_CACHED entries: the oldest goes first. */
function makeRoom(kept: Map<string, unknown> | Set<string>): void {
  if (kept.size < MAX_CACHED) return
  const oldest = kept.keys().next()
  if (!oldest.done) kept.delete(oldest.value)
}

function markEnded(id: string): void {
  makeRoom(ended)
  ended.add(id)
}

function remember(id: string, checked: Checked): void {
  makeRoom(cache)
  cache.delete(id)
  cache.set(id, checked)
}

/** For tests: what this instance remembers of sessions. */
export function forgetCheckedSessions(): void {
  cache.clear()
  ended.clear()
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export function isSessionId(value: unknown): value is string {
  return typeof value === "string" && UUID.test(value)
}

/** A new session for someone who just signed in; its id goes into the cookie. */
export async function createSession(
  db: Db,
  input: { email: string; role: Role; provider: SessionProvider; subject?: string | null; userAgent: string | null; address: string | null },
): Promise<string> {
  const [row] = await db
    .insert(consoleSessions)
    .values({
      staffEmail: input.email.toLowerCase(),
      role: input.role,
      provider: input.provider,
      userAgent: input.userAgent?.slice(0, 300) ?? null,
      address: input.address?.slice(0, 100) ?? null,
    })
    .returning({ id: consoleSessions.id })
  if (!row) throw new Error("the session row was not created")
  await recordAuthEvent(db, { kind: "signed_in", email: input.email, sessionId: row.id, address: input.address, detail: { role: input.role, provider: input.provider, ...(input.subject ? { subject: input.subject } : {}) } })
  return row.id
}

function expiryOf(row: ConsoleSession, now: number): "idle" | "absolute" | null {
  if (now - row.createdAt.getTime() >= SESSION_ABSOLUTE_S * 1000) return "absolute"
  if (now - row.lastSeenAt.getTime() >= sessionIdleS() * 1000) return "idle"
  return null
}

/**
 * Ends a session: deletes its row (so every instance refuses its cookie) and writes the
 * audit event. False when there was no such session.
 */
export async function endSession(
  db: Db,
  id: string,
  how: { kind: "signed_out" | "session_ended" | "session_expired"; actor?: string | null; reason?: string; detail?: Record<string, unknown> },
): Promise<boolean> {
  if (!isSessionId(id)) return false
  const [row] = await db.delete(consoleSessions).where(eq(consoleSessions.id, id)).returning()
  // From here no request is let through by what this instance remembers or is still reading.
  markEnded(id)
  cache.delete(id)
  inflight.delete(id)
  if (!row) return false
  await recordAuthEvent(db, {
    kind: how.kind,
    email: row.staffEmail,
    actor: how.actor ?? null,
    sessionId: row.id,
    address: row.address,
    detail: { role: row.role, ...how.detail, ...(how.reason ? { reason: how.reason } : {}) },
  })
  log.info(`auth.${how.kind}`, { who: row.staffEmail, by: how.actor ?? null, reason: how.reason ?? null, ...(how.detail?.subject ? { subject: how.detail.subject } : {}) })
  return true
}

/** The role a session's person has now: their staff row's, while it is active (console_staff decides for every way in). */
async function currentRole(db: Db, row: ConsoleSession): Promise<Role | null> {
  await ensureStaffBootstrap(db)
  const [staff] = await db.select({ role: consoleStaff.role, status: consoleStaff.status, source: consoleStaff.source }).from(consoleStaff).where(eq(consoleStaff.email, row.staffEmail.toLowerCase())).limit(1)
  return activeRole(staff)
}

/** Forgets what this instance remembers of someone's sessions: their next request reads their row again (a role change). */
export function forgetSessionsOf(email: string): void {
  const normalized = email.toLowerCase()
  for (const [id, checked] of cache) if (checked.staff?.email.toLowerCase() === normalized) cache.delete(id)
}

/** Ends every session of someone at once (disabled, removed): each on the trail. The number ended. */
export async function endSessionsOf(db: Db, email: string, how: { actor: string | null; reason: string }): Promise<number> {
  const rows = await db.select({ id: consoleSessions.id }).from(consoleSessions).where(eq(consoleSessions.staffEmail, email.toLowerCase()))
  let ended = 0
  for (const row of rows) if (await endSession(db, row.id, { kind: "session_ended", actor: how.actor, reason: how.reason })) ended++
  forgetSessionsOf(email)
  return ended
}

/**
 * Who a session is now, or null when it is over (signed out, ended by an admin, expired,
 * or its staff member disabled or removed on the staff table; the last two end it here). Read from
 * the database at most every SESSION_RECHECK_MS per instance.
 */
export async function resolveSession(db: Db, id: unknown, now = Date.now()): Promise<Staff | null> {
  if (!isSessionId(id) || ended.has(id)) return null
  const hit = cache.get(id)
  if (hit && now - hit.checkedAt < SESSION_RECHECK_MS) return hit.staff
  // Requests that arrive together when the remembered answer lapses share one read (and at
  // most one touch) of the session, instead of one each.
  let check = inflight.get(id)
  if (!check) {
    check = inDbSpan("session.read", () => checkSession(db, id, now))
      .catch((error: unknown) => {
        // The database is not answering: a session this instance saw valid a moment ago stays
        // valid meanwhile (reads that need no database keep working; writes fail on their own).
        if (hit?.staff && now - hit.checkedAt < SESSION_UNAVAILABLE_GRACE_MS && isDatabaseUnavailable(error)) return hit.staff
        throw error
      })
      .finally(() => inflight.delete(id))
    inflight.set(id, check)
  }
  // A request that joins a read already under way waits no longer than the one that started it.
  if (!hit?.staff || now - hit.checkedAt >= SESSION_UNAVAILABLE_GRACE_MS) return check
  const trusted = hit.staff
  let timer: ReturnType<typeof setTimeout> | undefined
  return Promise.race([check, new Promise<Staff>((resolve) => (timer = setTimeout(() => resolve(trusted), SESSION_SLOW_MS)))]).finally(() => clearTimeout(timer))
}

const inflight = new Map<string, Promise<Staff | null>>()

async function checkSession(db: Db, id: string, now: number): Promise<Staff | null> {
  void sweepExpiredSessions(db, now).catch((error: unknown) => log.warn("auth.session_sweep_failed", { error: String(error) }))
  const [row] = await db.select().from(consoleSessions).where(eq(consoleSessions.id, id)).limit(1)
  if (!row) {
    remember(id, { staff: null, checkedAt: now })
    return null
  }
  const expired = expiryOf(row, now)
  if (expired) {
    await endSession(db, id, { kind: "session_expired", reason: expired === "idle" ? "idle timeout" : "absolute lifetime" })
    remember(id, { staff: null, checkedAt: now })
    return null
  }
  const role = await currentRole(db, row)
  if (!role) {
    await endSession(db, id, { kind: "session_ended", reason: "no longer an active staff member" })
    remember(id, { staff: null, checkedAt: now })
    return null
  }
  if (role !== row.role || now - row.lastSeenAt.getTime() >= TOUCH_EVERY_MS) {
    await db.update(consoleSessions).set({ role, lastSeenAt: new Date(now) }).where(eq(consoleSessions.id, id))
  }
  // Ended here while this read was under way: the end is the newer answer.
  if (ended.has(id)) return null
  const staff: Staff = { email: row.staffEmail, role }
  remember(id, { staff, checkedAt: now })
  return staff
}

/** Ends every session past its idle or absolute limit, at most once a minute per instance. */
export async function sweepExpiredSessions(db: Db, now = Date.now(), force = false): Promise<number> {
  if (!force && now - (globalForSessions.__consoleSessionSwept ?? 0) < SWEEP_EVERY_MS) return 0
  globalForSessions.__consoleSessionSwept = now
  const rows = await db
    .select({ id: consoleSessions.id, createdAt: consoleSessions.createdAt, lastSeenAt: consoleSessions.lastSeenAt })
    .from(consoleSessions)
    .where(
      or(
        lt(consoleSessions.lastSeenAt, new Date(now - sessionIdleS() * 1000)),
        lt(consoleSessions.createdAt, new Date(now - SESSION_ABSOLUTE_S * 1000)),
      ),
    )
    .limit(500)
  let ended = 0
  for (const row of rows) {
    const reason = now - row.createdAt.getTime() >= SESSION_ABSOLUTE_S * 1000 ? "absolute lifetime" : "idle timeout"
    if (await endSession(db, row.id, { kind: "session_expired", reason })) ended++
  }
  return ended
}

export interface SessionView {
  id: string
  email: string
  role: string
  provider: string
  created_at: string
  last_seen_at: string
  user_agent: string | null
  address: string | null
}

/** Open sessions, most recently active first; among sessions last seen at the same instant, the newest
 * first, then by id, so the admin's list keeps its order from one refresh to the next. */
export async function listSessions(db: Db, now = Date.now()): Promise<SessionView[]> {
  const rows = await db
    .select({ session: consoleSessions, role: consoleStaff.role })
    .from(consoleSessions)
    .leftJoin(consoleStaff, eq(consoleStaff.email, consoleSessions.staffEmail))
    .where(
      and(
        gte(consoleSessions.lastSeenAt, new Date(now - sessionIdleS() * 1000)),
        gte(consoleSessions.createdAt, new Date(now - SESSION_ABSOLUTE_S * 1000)),
      ),
    )
    .orderBy(desc(consoleSessions.lastSeenAt), desc(consoleSessions.createdAt), asc(consoleSessions.id))
    .limit(1000)
  return rows.map(({ session: row, role }) => ({
    id: row.id,
    email: row.staffEmail,
    role: role ?? row.role,
    provider: row.provider,
    created_at: row.createdAt.toISOString(),
    last_seen_at: row.lastSeenAt.toISOString(),
    user_agent: row.userAgent,
    address: row.address,
  }))
}

export interface AuthEventView {
  id: string
  at: string
  kind: string
  email: string | null
  actor: string | null
  session_id: string | null
  address: string | null
  detail: Record<string, unknown> | null
}

/** Sign-in and session events, newest first (the audit trail's sign-in events filter). */
export async function listAuthEvents(db: Db, query: { email?: string | undefined; limit?: number } = {}): Promise<AuthEventView[]> {
  const rows = await db
    .select()
    .from(consoleAuthEvents)
    .where(query.email ? eq(consoleAuthEvents.email, query.email.trim().toLowerCase()) : undefined)
    .orderBy(desc(consoleAuthEvents.at), desc(consoleAuthEvents.seq))
    .limit(Math.min(Math.max(query.limit ?? 200, 1), 500))
  return rows.map((row) => ({
    id: row.id,
    at: row.at.toISOString(),
    kind: row.kind,
    email: row.email,
    actor: row.actor,
    session_id: row.sessionId,
    address: row.address,
    detail: row.detail,
  }))
}
