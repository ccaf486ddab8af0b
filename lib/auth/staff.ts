import "server-only"
import { createHash, randomBytes } from "node:crypto"
import { and, count, desc, eq, gt, isNull, max, sql } from "drizzle-orm"
import { type Role, type Staff, ROLES, isRole } from "@/lib/auth/roles"
import { type AuthEventKind, SESSION_ABSOLUTE_S, sessionIdleS, endSessionsOf, forgetSessionsOf, recordAuthEvent } from "@/lib/auth/sessions"
import { ensureStaffBootstrap, passkeyRoles } from "@/lib/auth/staff-bootstrap"
import { boundedTransaction } from "@/lib/db/bounded"
import type { Db } from "@/lib/db/client"
import {
  type ConsoleStaffInvitation,
  type ConsoleStaffRow,
  type StaffSource,
  type StaffStatus,
  consoleAuthEvents,
  consolePasskeys,
  consoleSessions,
  consoleStaff,
  consoleStaffInvitations,
  consoleStaffSettings,
} from "@/lib/db/schema"
import { env } from "@/lib/env"
import { log } from "@/lib/log"
import { staffRef } from "@/lib/auth/staff-ref"
import { type HttpProblem, invitationUnusable as unusable, lastAdmin, notFound, staffExists, stateConflict } from "@/lib/problem"

/**
 * Staff managed in the console (issue 35). `console_staff` is who may sign in: the
 * password, passkey and single sign-on paths and every session check read it, so a role
 * change applies on the next request and disabling or removing someone ends their
 * sessions at once (on other instances within SESSION_RECHECK_MS). CONSOLE_USERS and, in
 * sandbox mode, the demo users are a bootstrap: each email is created once, when the
 * console first starts with it, and never again (a change or removal made here stands).
 * Every change, refused ones too, is a sign-in event with the person's state before and after.
 */

export { activeRole, ensureStaffBootstrap, passkeyRoles, staffRow } from "@/lib/auth/staff-bootstrap"

export const INVITATION_TTL_MS = 24 * 3600_000

// ---- The list ------------------------------------------------------------------------------

export type SignInMethod = "password" | "passkey" | "sso"

export interface StaffView {
  email: string
  role: Role
  status: StaffStatus
  source: StaffSource
  methods: SignInMethod[]
  passkeys: number
  last_sign_in_at: string | null
  active_sessions: number
  invited_by: string | null
  created_at: string
  updated_at: string
  updated_by: string | null
  /** A pending invitation (status invited): its id and when it expires. */
  invitation: { id: string; expires_at: string; expired: boolean } | null
}

export async function listStaff(db: Db, now = new Date()): Promise<StaffView[]> {
  await ensureStaffBootstrap(db)
  const sessionsOpen = and(
    gt(consoleSessions.lastSeenAt, new Date(now.getTime() - sessionIdleS() * 1000)),
    gt(consoleSessions.createdAt, new Date(now.getTime() - SESSION_ABSOLUTE_S * 1000)),
  )
  const [rows, passkeys, signIns, sessions, invitations] = await Promise.all([
    db.select().from(consoleStaff).orderBy(consoleStaff.email),
    db.select({ email: consolePasskeys.staffEmail, n: count() }).from(consolePasskeys).groupBy(consolePasskeys.staffEmail),
    db
      .select({ email: sql<string>`lower(${consoleAuthEvents.email})`, at: max(consoleAuthEvents.at), sso: sql<boolean>`bool_or(${consoleAuthEvents.detail}->>'provider' = 'oidc')` })
      .from(consoleAuthEvents)
      .where(eq(consoleAuthEvents.kind, "signed_in"))
      .groupBy(sql`lower(${consoleAuthEvents.email})`),
    db.select({ email: sql<string>`lower(${consoleSessions.staffEmail})`, n: count() }).from(consoleSessions).where(sessionsOpen).groupBy(sql`lower(${consoleSessions.staffEmail})`),
    db
      .select()
      .from(consoleStaffInvitations)
      .where(and(isNull(consoleStaffInvitations.acceptedAt), isNull(consoleStaffInvitations.withdrawnAt)))
      .orderBy(desc(consoleStaffInvitations.createdAt)),
  ])
  const passkeyCount = new Map(passkeys.map((p) => [p.email, Number(p.n)]))
  const lastSignIn = new Map(signIns.map((s) => [s.email, s]))
  const sessionCount = new Map(sessions.map((s) => [s.email, Number(s.n)]))
  const config = env()
  return rows.map((row) => {
    const n = passkeyCount.get(row.email) ?? 0
    const signIn = lastSignIn.get(row.email)
    const methods: SignInMethod[] = []
    if (row.passwordHash || (row.source === "demo" && config.mode === "sandbox")) methods.push("password")
    if (n > 0) methods.push("passkey")
    if (row.source === "sso" || signIn?.sso) methods.push("sso")
    const invitation = row.status === "invited" ? invitations.find((i) => i.email === row.email) : undefined
    return {
      email: row.email,
      role: isRole(row.role) ? row.role : "viewer",
      status: row.status,
      source: row.source,
      methods,
      passkeys: n,
      last_sign_in_at: signIn?.at ? new Date(signIn.at).toISOString() : null,
      active_sessions: sessionCount.get(row.email) ?? 0,
      invited_by: row.invitedBy,
      created_at: row.createdAt.toISOString(),
      updated_at: row.updatedAt.toISOString(),
      updated_by: row.updatedBy,
      invitation: invitation ? { id: invitation.id, expires_at: invitation.expiresAt.toISOString(), expired: invitation.expiresAt.getTime() <= now.getTime() } : null,
    }
  })
}

// ---- Changes ---------------------------------------------------------------------------------

type Snapshot = { role: string; status: StaffStatus } | null

function snapshot(row: ConsoleStaffRow | undefined | null): Snapshot {
  return row ? { role: row.role, status: row.status } : null
}

async function audit(
  db: Db,
  kind: AuthEventKind,
  input: { email: string; actor: string | null; before?: Snapshot; after?: Snapshot; outcome?: string; detail?: Record<string, unknown> },
): Promise<void> {
  await recordAuthEvent(db, {
    kind,
    email: input.email,
    actor: input.actor,
    detail: { before: input.before ?? null, after: input.after ?? null, outcome: input.outcome ?? "done", ...input.detail },
  })
}

/** Locks the staff table's admins for one change at a time, so two admins demoting each other cannot both win. */
async function lockStaff(tx: Db): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext('console_staff'))`)
}

async function otherActiveAdmins(tx: Db, email: string): Promise<number> {
  const [row] = await tx
    .select({ n: count() })
    .from(consoleStaff)
    .where(
      and(
        eq(consoleStaff.role, "admin"),
        eq(consoleStaff.status, "active"),
        sql`${consoleStaff.email} <> ${email}`,
        // The demo users sign in in sandbox mode only: outside it, a demo admin is no admin.
        env().mode === "sandbox" ? undefined : sql`${consoleStaff.source} <> 'demo'`,
      ),
    )
  return Number(row?.n ?? 0)
}

const LAST_ADMIN_DETAIL = {
  demote: "is the last active admin: they cannot be given another role until someone else is an active admin",
  disable: "is the last active admin: they cannot be disabled until someone else is an active admin",
  remove: "is the last active admin: they cannot be removed until someone else is an active admin",
} as const

export interface StaffChange {
  role?: Role | undefined
  status?: "active" | "disabled" | undefined
}

/**
 * Changes someone's role and/or status (active, disabled). Disabling ends their sessions at
 * once; a role change applies on their next request. The last active admin cannot be
 * demoted or disabled (409 last_admin). Every attempt is on the trail.
 */
export async function changeStaff(db: Db, actor: Staff, emailInput: string, change: StaffChange, now = new Date()): Promise<StaffView> {
  const email = emailInput.trim().toLowerCase()
  const outcome = await boundedTransaction(db, async (tx) => {
    await lockStaff(tx)
    const [row] = await tx.select().from(consoleStaff).where(eq(consoleStaff.email, email)).for("update").limit(1)
    if (!row) return { refused: notFound("No staff member has this email."), before: null, code: "not_found" } as const
    const before = snapshot(row)
    if (row.status === "invited" && change.status) {
      const refused = stateConflict(`${email} has not accepted their invitation yet: withdraw it instead. Nothing changed.`, { state: "invited" })
      return { refused, before, code: "state_conflict" } as const
    }
    const role = change.role ?? (row.role as Role)
    const status = change.status ?? row.status
    const losesAdmin = row.role === "admin" && row.status === "active" && (role !== "admin" || status !== "active")
    if (losesAdmin && (await otherActiveAdmins(tx, email)) === 0) {
      const what = status !== "active" ? "disable" : "demote"
      return { refused: lastAdmin(`${email} ${LAST_ADMIN_DETAIL[what]}. Nothing changed.`), before, code: "last_admin" } as const
    }
    const [after] = await tx
      .update(consoleStaff)
      .set({ role, status, updatedAt: now, updatedBy: actor.email })
      .where(eq(consoleStaff.email, email))
      .returning()
    await audit(tx, "staff_changed", { email, actor: actor.email, before, after: snapshot(after) })
    return { refused: null, before, after } as const
  })
  if (outcome.refused) {
    if (outcome.code !== "not_found") await audit(db, "staff_changed", { email, actor: actor.email, before: outcome.before, after: outcome.before, outcome: outcome.code, detail: { asked: change } })
    throw outcome.refused
  }
  forgetSessionsOf(email)
  if (outcome.after?.status === "disabled" && outcome.before?.status !== "disabled") {
    await endSessionsOf(db, email, { actor: actor.email, reason: "disabled by an admin" })
  }
  log.info("staff.changed", { who: staffRef(email), by: staffRef(actor.email), role: outcome.after?.role ?? null, status: outcome.after?.status ?? null })
  const view = (await listStaff(db, now)).find((s) => s.email === email)
  if (!view) throw notFound("No staff member has this email.")
  return view
}

/** Removes someone: their row, passkeys and pending invitations go, their sessions end at once. Not the last active admin. */
export async function removeStaff(db: Db, actor: Staff, emailInput: string, now = new Date()): Promise<void> {
  const email = emailInput.trim().toLowerCase()
  const outcome = await boundedTransaction(db, async (tx) => {
    await lockStaff(tx)
    const [row] = await tx.select().from(consoleStaff).where(eq(consoleStaff.email, email)).for("update").limit(1)
    if (!row) return { code: "not_found", before: null } as const
    const before = snapshot(row)
    if (row.role === "admin" && row.status === "active" && (await otherActiveAdmins(tx, email)) === 0) return { code: "last_admin", before } as const
    await tx.delete(consoleStaff).where(eq(consoleStaff.email, email))
    await tx.delete(consolePasskeys).where(eq(consolePasskeys.staffEmail, email))
    await tx
      .update(consoleStaffInvitations)
      .set({ withdrawnAt: now, withdrawnBy: actor.email })
      .where(and(eq(consoleStaffInvitations.email, email), isNull(consoleStaffInvitations.acceptedAt), isNull(consoleStaffInvitations.withdrawnAt)))
    await audit(tx, "staff_removed", { email, actor: actor.email, before, after: null })
    return { code: null, before } as const
  })
  if (outcome.code === "not_found") throw notFound("No staff member has this email.")
  if (outcome.code === "last_admin") {
    await audit(db, "staff_removed", { email, actor: actor.email, before: outcome.before, after: outcome.before, outcome: "last_admin" })
    throw lastAdmin(`${email} ${LAST_ADMIN_DETAIL.remove}. Nothing changed.`)
  }
  forgetSessionsOf(email)
  await endSessionsOf(db, email, { actor: actor.email, reason: "removed from the staff" })
  log.info("staff.removed", { who: staffRef(email), by: staffRef(actor.email) })
}

/** Sets the roles that must sign in with a passkey; on the trail with before and after. */
export async function setPasskeyRoles(db: Db, actor: Staff, roles: readonly Role[], now = new Date()): Promise<Role[]> {
  const sorted = ROLES.filter((r) => roles.includes(r))
  const result = await boundedTransaction(db, async (tx) => {
    await lockStaff(tx)
    const previous = await passkeyRoles(tx)
    if (sorted.includes("admin") && !previous.includes("admin")) {
      // Passkeys required of admins while no active admin has one: nobody could sign in to manage the team.
      const [row] = await tx
        .select({ n: count() })
        .from(consoleStaff)
        .innerJoin(consolePasskeys, eq(consolePasskeys.staffEmail, consoleStaff.email))
        .where(and(eq(consoleStaff.role, "admin"), eq(consoleStaff.status, "active")))
      if (Number(row?.n ?? 0) === 0) return { refused: true as const, previous }
    }
    await tx
      .insert(consoleStaffSettings)
      .values({ id: 1, passkeyRoles: sorted, updatedAt: now, updatedBy: actor.email })
      .onConflictDoUpdate({ target: consoleStaffSettings.id, set: { passkeyRoles: sorted, updatedAt: now, updatedBy: actor.email } })
    await recordAuthEvent(tx, { kind: "sign_in_rules_changed", actor: actor.email, detail: { before: { passkey_roles: previous }, after: { passkey_roles: sorted }, outcome: "done" } })
    return { refused: false as const, previous }
  })
  if (result.refused) {
    await recordAuthEvent(db, { kind: "sign_in_rules_changed", actor: actor.email, detail: { before: { passkey_roles: result.previous }, after: { passkey_roles: result.previous }, outcome: "last_admin" } })
    throw lastAdmin("No active admin has a passkey: requiring passkeys of admins now would leave nobody able to sign in to manage the team. Register a passkey on your account page first. Nothing changed.")
  }
  const before = result.previous
  log.info("staff.sign_in_rules_changed", { by: staffRef(actor.email), before: before.join(",") || "none", after: sorted.join(",") || "none" })
  return sorted
}

// ---- Invitations -----------------------------------------------------------------------------

export function tokenHash(token: string): string {
  return createHash("sha256").update(token).digest("hex")
}

export interface InvitationView {
  id: string
  email: string
  role: Role
  invited_by: string
  created_at: string
  expires_at: string
}

function invitationView(row: ConsoleStaffInvitation): InvitationView {
  return { id: row.id, email: row.email, role: isRole(row.role) ? row.role : "viewer", invited_by: row.invitedBy, created_at: row.createdAt.toISOString(), expires_at: row.expiresAt.toISOString() }
}

/**
 * Invites an email with a role: a staff row (invited) and a one-time token, whose SHA-256
 * alone is kept. The token is returned once, for the link the admin copies (and, once the
 * notifications work sends mail, for the message: see `invitationLink`). Inviting an email
 * already invited withdraws its earlier link and makes a new one; an email already on the
 * staff is refused (409 staff_exists).
 */
export async function inviteStaff(db: Db, actor: Staff, input: { email: string; role: Role }, now = new Date()): Promise<{ token: string; invitation: InvitationView }> {
  await ensureStaffBootstrap(db)
  const email = input.email.trim().toLowerCase()
  const token = randomBytes(32).toString("base64url")
  const result = await boundedTransaction(db, async (tx) => {
    await lockStaff(tx)
    const [row] = await tx.select().from(consoleStaff).where(eq(consoleStaff.email, email)).for("update").limit(1)
    if (row && row.status !== "invited") return { refused: snapshot(row) } as const
    if (row) {
      await tx
        .update(consoleStaffInvitations)
        .set({ withdrawnAt: now, withdrawnBy: actor.email })
        .where(and(eq(consoleStaffInvitations.email, email), isNull(consoleStaffInvitations.acceptedAt), isNull(consoleStaffInvitations.withdrawnAt)))
      await tx.update(consoleStaff).set({ role: input.role, invitedBy: actor.email, updatedAt: now, updatedBy: actor.email }).where(eq(consoleStaff.email, email))
    } else {
      await tx.insert(consoleStaff).values({ email, role: input.role, status: "invited", source: "invitation", invitedBy: actor.email, createdAt: now, updatedAt: now, updatedBy: actor.email })
    }
    const [invitation] = await tx
      .insert(consoleStaffInvitations)
      .values({ email, role: input.role, tokenHash: tokenHash(token), invitedBy: actor.email, createdAt: now, expiresAt: new Date(now.getTime() + INVITATION_TTL_MS) })
      .returning()
    if (!invitation) throw new Error("the invitation row was not created")
    await audit(tx, "staff_invited", { email, actor: actor.email, before: snapshot(row), after: { role: input.role, status: "invited" }, detail: { invitation: invitation.id, expires_at: invitation.expiresAt.toISOString() } })
    return { refused: null, invitation } as const
  })
  if (result.refused || !result.invitation) {
    const existing = result.refused
    await audit(db, "staff_invited", { email, actor: actor.email, before: existing, after: existing, outcome: "staff_exists" })
    throw staffExists(`${email} is already on the staff (${existing?.status ?? "unknown"}, ${existing?.role ?? "unknown"}): change their role or status instead. Nothing changed.`)
  }
  log.info("staff.invited", { who: staffRef(email), by: staffRef(actor.email), role: input.role })
  return { token, invitation: invitationView(result.invitation) }
}

/**
 * The seam for mail (the notifications work): the absolute link an invitation's token
 * opens. Whoever sends it must treat it as a secret (it is one until accepted or expired).
 */
export function invitationLink(origin: string, token: string): string {
  return `${origin}/invitation/${token}`
}

/** Withdraws a pending invitation: its link stops working and the invited row goes. */
export async function withdrawInvitation(db: Db, actor: Staff, id: string, now = new Date()): Promise<void> {
  const done = await boundedTransaction(db, async (tx) => {
    await lockStaff(tx)
    const [invitation] = await tx
      .update(consoleStaffInvitations)
      .set({ withdrawnAt: now, withdrawnBy: actor.email })
      .where(and(eq(consoleStaffInvitations.id, id), isNull(consoleStaffInvitations.acceptedAt), isNull(consoleStaffInvitations.withdrawnAt)))
      .returning()
    if (!invitation) return false
    const [removed] = await tx.delete(consoleStaff).where(and(eq(consoleStaff.email, invitation.email), eq(consoleStaff.status, "invited"))).returning()
    await audit(tx, "invitation_withdrawn", { email: invitation.email, actor: actor.email, before: snapshot(removed), after: null, detail: { invitation: invitation.id } })
    return true
  })
  if (!done) throw notFound("No pending invitation has this id (it may have been accepted or withdrawn already).")
}

export type InvitationState = "pending" | "used" | "expired" | "withdrawn" | "unknown"

export async function invitationByToken(db: Db, token: string, now = new Date()): Promise<{ state: InvitationState; invitation: InvitationView | null }> {
  if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) return { state: "unknown", invitation: null }
  const [row] = await db.select().from(consoleStaffInvitations).where(eq(consoleStaffInvitations.tokenHash, tokenHash(token))).limit(1)
  if (!row) return { state: "unknown", invitation: null }
  const state: InvitationState = row.acceptedAt ? "used" : row.withdrawnAt ? "withdrawn" : row.expiresAt.getTime() <= now.getTime() ? "expired" : "pending"
  return { state, invitation: invitationView(row) }
}

export const INVITATION_STATE_TEXT: Record<Exclude<InvitationState, "pending">, string> = {
  used: "This invitation was already used: an invitation link works once. Sign in, or ask an admin for a new invitation.",
  expired: "This invitation has expired (a link works for 24 hours). Ask an admin for a new invitation.",
  withdrawn: "This invitation was withdrawn by an admin. Ask an admin if you still need access.",
  unknown: "This is not an invitation link this console made. Check the link, or ask an admin for a new invitation.",
}

export function invitationUnusable(state: Exclude<InvitationState, "pending">): HttpProblem {
  return unusable(`${INVITATION_STATE_TEXT[state]} Nothing changed.`, state)
}

/**
 * Accepts an invitation: takes it (one conditional update: of two uses, one wins), makes
 * the person active with the password hash given (if any), and runs `extra` (a passkey's
 * registration) in the same transaction, so a refusal changes nothing.
 */
export async function acceptInvitation(
  db: Db,
  token: string,
  input: { passwordHash: string | null },
  extra: (tx: Db, staff: Staff) => Promise<void>,
  now = new Date(),
): Promise<Staff> {
  const found = await invitationByToken(db, token, now)
  if (found.state !== "pending") throw invitationUnusable(found.state)
  const result = await boundedTransaction(db, async (tx) => {
    const [taken] = await tx
      .update(consoleStaffInvitations)
      .set({ acceptedAt: now })
      .where(
        and(
          eq(consoleStaffInvitations.tokenHash, tokenHash(token)),
          isNull(consoleStaffInvitations.acceptedAt),
          isNull(consoleStaffInvitations.withdrawnAt),
          gt(consoleStaffInvitations.expiresAt, now),
        ),
      )
      .returning()
    if (!taken) return null
    const role: Role = isRole(taken.role) ? taken.role : "viewer"
    const [row] = await tx.select().from(consoleStaff).where(eq(consoleStaff.email, taken.email)).for("update").limit(1)
    if (row?.status !== "invited") return null
    const staff: Staff = { email: taken.email, role }
    await extra(tx, staff)
    const [after] = await tx
      .update(consoleStaff)
      .set({ status: "active", role, passwordHash: input.passwordHash, updatedAt: now, updatedBy: taken.email })
      .where(eq(consoleStaff.email, taken.email))
      .returning()
    await audit(tx, "invitation_accepted", { email: taken.email, actor: taken.email, before: snapshot(row), after: snapshot(after), detail: { invitation: taken.id, password: input.passwordHash !== null } })
    return staff
  })
  if (!result) {
    const again = await invitationByToken(db, token, now)
    throw invitationUnusable(again.state === "pending" ? "used" : again.state)
  }
  log.info("staff.invitation_accepted", { who: staffRef(result.email), role: result.role })
  return result
}

// ---- Single sign-on ---------------------------------------------------------------------------

/**
 * A single sign-on the provider admitted with `role`: the person's row is created on
 * their first one (status active, the provider's role); later, the provider's role is
 * written back when it changed (on the trail as a change by single sign-on). A disabled
 * row refuses them: null.
 */
export async function admitSso(db: Db, email: string, role: Role, now = new Date()): Promise<Role | null> {
  await ensureStaffBootstrap(db)
  const normalized = email.trim().toLowerCase()
  return boundedTransaction(db, async (tx) => {
    const [row] = await tx.select().from(consoleStaff).where(eq(consoleStaff.email, normalized)).for("update").limit(1)
    if (row?.status === "disabled") return null
    if (!row) {
      await tx.insert(consoleStaff).values({ email: normalized, role, status: "active", source: "sso", createdAt: now, updatedAt: now, updatedBy: "single sign-on" }).onConflictDoNothing()
      await audit(tx, "staff_changed", { email: normalized, actor: null, before: null, after: { role, status: "active" }, detail: { provider: "oidc", reason: "first single sign-on" } })
      return role
    }
    if (row.role !== role || row.status !== "active") {
      const [after] = await tx.update(consoleStaff).set({ role, status: "active", updatedAt: now, updatedBy: "single sign-on" }).where(eq(consoleStaff.email, normalized)).returning()
      await audit(tx, "staff_changed", { email: normalized, actor: null, before: snapshot(row), after: snapshot(after), detail: { provider: "oidc", reason: "the provider's role" } })
    }
    return role
  })
}
