import { randomUUID } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import bcrypt from "bcryptjs"
import { eq } from "drizzle-orm"
import { encode } from "next-auth/jwt"
import { NextRequest } from "next/server"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"

// Sessions the server can end, through the real route modules and the real next-auth
// callbacks, against the embedded sandbox on a fresh PGlite folder. A "restart" re-imports
// every module with a new CONSOLE_USERS, on the same database, as a new process would.
const dataDir = mkdtempSync(path.join(tmpdir(), "console-sessions-"))
const SECRET = "session-tests-secret-0123456789-abcdefghijklmn"
const HASH = bcrypt.hashSync("ops-password-1", 4)
const users = (role: string | null) =>
  JSON.stringify(role ? [{ email: "ops@example.com", role, passwordHash: HASH }] : [{ email: "other@example.com", role: "viewer", passwordHash: HASH }])
process.env.DATA_DIR = dataDir
process.env.NEXTAUTH_SECRET = SECRET
process.env.LOG_LEVEL = "silent"
process.env.CONSOLE_USERS = users("trader")

type Handler = (req: NextRequest, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>

async function modules() {
  return {
    me: (await import("@/app/api/me/route")).GET as Handler,
    conversions: (await import("@/app/api/conversions/route")).POST as Handler,
    endSessionRoute: (await import("@/app/api/admin/sessions/[id]/route")).DELETE as Handler,
    listSessionsRoute: (await import("@/app/api/admin/sessions/route")).GET as Handler,
    options: (await import("@/lib/auth/options")).authOptions(),
    sessions: await import("@/lib/auth/sessions"),
    runtime: await (await import("@/lib/console/runtime")).consoleRuntime(),
    schema: await import("@/lib/db/schema"),
  }
}
let m: Awaited<ReturnType<typeof modules>>
let profileId: string

/** "Restarts" the console: every module anew, the process's database kept (it lives on globalThis). */
async function restartWith(role: string | null) {
  process.env.CONSOLE_USERS = users(role)
  m.sessions.forgetCheckedSessions()
  vi.resetModules()
  m = await modules()
}

/** Signs in the way next-auth does: authorize, then the jwt callback mints the cookie's claims. */
async function signIn(email: string, password: string): Promise<{ cookie: string; sid: string }> {
  const provider = m.options.providers[0] as unknown as { options: { authorize(c: Record<string, string>): Promise<{ email: string; role: string } | null> } }
  const user = await provider.options.authorize({ email, password })
  if (!user) throw new Error("sign-in refused")
  const jwt = m.options.callbacks!.jwt! as (p: Record<string, unknown>) => Promise<Record<string, unknown>>
  const token = await jwt({ token: { email: user.email, sub: user.email }, user, account: { provider: "credentials" } })
  const cookie = await encode({ token, secret: SECRET, maxAge: 30 * 60 })
  return { cookie: `next-auth.session-token=${cookie}`, sid: String(token.sid) }
}

function call(handler: Handler, cookie: string, init: { method?: string; body?: unknown; params?: Record<string, string> } = {}) {
  const headers = new Headers({ cookie, origin: "http://localhost" })
  if (init.body !== undefined) headers.set("content-type", "application/json")
  const req = new NextRequest("http://localhost/api/x", {
    method: init.method ?? "GET",
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  })
  return handler(req, { params: Promise.resolve(init.params ?? {}) })
}

const conversion = () => ({ profile_id: profileId, amount: "1.00", source_asset: "USD", target_asset: "USDP", ref_id: randomUUID() })

beforeAll(async () => {
  m = await modules()
  profileId = (await m.runtime.upstream.listProfiles()).items[0]!.id
}, 60_000)

afterAll(async () => {
  await m.runtime.sandbox?.stop()
  rmSync(dataDir, { recursive: true, force: true })
})

async function eventsOf(sid: string) {
  const rows = await m.runtime.db.select().from(m.schema.consoleAuthEvents).where(eq(m.schema.consoleAuthEvents.sessionId, sid))
  return rows.map((r) => r.kind).sort()
}

describe("sessions the server can end", () => {
  it("after sign-out the old cookie gets 401 on GET /api/me and POST /api/conversions, and /api/auth/session does not renew it", async () => {
    const { cookie, sid } = await signIn("ops@example.com", "ops-password-1")
    expect((await call(m.me, cookie)).status).toBe(200)
    expect((await call(m.conversions, cookie, { method: "POST", body: conversion() })).status).toBe(200)

    // next-auth's sign-out route calls this event with the decoded cookie.
    await m.options.events!.signOut!({ token: { sid, email: "ops@example.com" }, session: undefined as never })

    expect((await call(m.me, cookie)).status).toBe(401)
    expect((await call(m.conversions, cookie, { method: "POST", body: conversion() })).status).toBe(401)
    // What /api/auth/session (and every page, through getServerSession) runs for the cookie: it
    // throws, and next-auth answers {} and clears the cookie instead of renewing it.
    const jwt = m.options.callbacks!.jwt! as (p: Record<string, unknown>) => Promise<unknown>
    await expect(jwt({ token: { sid, email: "ops@example.com", role: "trader" } })).rejects.toThrow(/over/)
    expect(await eventsOf(sid)).toEqual(["signed_in", "signed_out"])
  })

  it("CONSOLE_USERS is a bootstrap: a restart with another role or without the person changes nothing; the staff table decides, on the next request", async () => {
    const { cookie, sid } = await signIn("ops@example.com", "ops-password-1")
    expect(await (await call(m.me, cookie)).json()).toMatchObject({ role: "trader" })

    await restartWith("viewer")
    expect(await (await call(m.me, cookie)).json()).toMatchObject({ email: "ops@example.com", role: "trader" })
    await restartWith(null)
    expect(await (await call(m.me, cookie)).json()).toMatchObject({ email: "ops@example.com", role: "trader" })

    // A demotion in the table: the open session's next request is a viewer's.
    await m.runtime.db.update(m.schema.consoleStaff).set({ role: "viewer" }).where(eq(m.schema.consoleStaff.email, "ops@example.com"))
    m.sessions.forgetCheckedSessions()
    expect(await (await call(m.me, cookie)).json()).toMatchObject({ email: "ops@example.com", role: "viewer" })
    const refused = await call(m.conversions, cookie, { method: "POST", body: conversion() })
    expect(refused.status).toBe(403)
    expect(await refused.json()).toMatchObject({ detail: "This needs the trader role; you are viewer." })

    // A row gone (removed by hand, or on another instance) ends the session.
    await m.runtime.db.delete(m.schema.consoleStaff).where(eq(m.schema.consoleStaff.email, "ops@example.com"))
    m.sessions.forgetCheckedSessions()
    expect((await call(m.me, cookie)).status).toBe(401)
    expect((await call(m.conversions, cookie, { method: "POST", body: conversion() })).status).toBe(401)
    const [row] = await m.runtime.db.select().from(m.schema.consoleSessions).where(eq(m.schema.consoleSessions.id, sid))
    expect(row).toBeUndefined()
    const [ended] = await m.runtime.db.select().from(m.schema.consoleAuthEvents).where(eq(m.schema.consoleAuthEvents.kind, "session_ended"))
    expect(ended).toMatchObject({ email: "ops@example.com", detail: { reason: "no longer an active staff member" } })
    // Seeded once: the next start does not bring a removed person back.
    await restartWith("trader")
    await expect(signIn("ops@example.com", "ops-password-1")).rejects.toThrow("sign-in refused")
    await m.runtime.db.insert(m.schema.consoleStaff).values({ email: "ops@example.com", role: "trader", status: "active", source: "bootstrap", passwordHash: HASH })
  })

  it("an admin sees the session and ends it; the cookie stops at once, and the end is on the audit trail", async () => {
    const trader = await signIn("ops@example.com", "ops-password-1")
    const admin = await signIn("admin@example.com", "demo-password")
    const listed = (await (await call(m.listSessionsRoute, admin.cookie)).json()) as { items: { id: string; email: string; role: string }[] }
    expect(listed.items.find((s) => s.id === trader.sid)).toMatchObject({ email: "ops@example.com", role: "trader" })

    const ended = await call(m.endSessionRoute, admin.cookie, { method: "DELETE", params: { id: trader.sid } })
    expect(ended.status).toBe(204)
    expect((await call(m.me, trader.cookie)).status).toBe(401)
    expect((await call(m.endSessionRoute, admin.cookie, { method: "DELETE", params: { id: trader.sid } })).status).toBe(404)
    const bad = await call(m.endSessionRoute, admin.cookie, { method: "DELETE", params: { id: "not-a-session" } })
    expect(await bad.json()).toMatchObject({ status: 400, meta: { fields: { id: "must be a session id (a UUID)" } } })
    const [event] = await m.runtime.db.select().from(m.schema.consoleAuthEvents).where(eq(m.schema.consoleAuthEvents.actor, "admin@example.com"))
    expect(event).toMatchObject({ kind: "session_ended", email: "ops@example.com", sessionId: trader.sid })
  })

  it("the admin's list keeps one order when sessions were last seen at the same instant: the newest first, then by id", async () => {
    const a = await signIn("ops@example.com", "ops-password-1")
    const b = await signIn("ops@example.com", "ops-password-1")
    const c = await signIn("ops@example.com", "ops-password-1")
    const admin = await signIn("admin@example.com", "demo-password")
    const { consoleSessions } = m.schema
    const seen = new Date(Date.now() + 60_000)
    const created = new Date(Date.now() - 60_000)
    const older = new Date(created.getTime() - 1000)
    // b is the newest; a and c share their creation time, so their ids decide.
    await m.runtime.db.update(consoleSessions).set({ lastSeenAt: seen, createdAt: older }).where(eq(consoleSessions.id, a.sid))
    await m.runtime.db.update(consoleSessions).set({ lastSeenAt: seen, createdAt: created }).where(eq(consoleSessions.id, b.sid))
    await m.runtime.db.update(consoleSessions).set({ lastSeenAt: seen, createdAt: older }).where(eq(consoleSessions.id, c.sid))
    const [first, second] = [a.sid, c.sid].sort()
    for (let i = 0; i < 3; i++) {
      const listed = (await (await call(m.listSessionsRoute, admin.cookie)).json()) as { items: { id: string }[] }
      expect(listed.items.map((s) => s.id).slice(0, 3)).toEqual([b.sid, first, second])
    }
    for (const s of [a, b, c]) await call(m.endSessionRoute, admin.cookie, { method: "DELETE", params: { id: s.sid } })
  })

  it("an admin ends a session while a read of it is under way: that read's late answer does not bring it back, and no request waits on it", async () => {
    const trader = await signIn("ops@example.com", "ops-password-1")
    const admin = await signIn("admin@example.com", "demo-password")
    const now = Date.now()
    expect(await m.sessions.resolveSession(m.runtime.db, trader.sid, now)).toMatchObject({ role: "trader" })
    const [row] = await m.runtime.db.select().from(m.schema.consoleSessions).where(eq(m.schema.consoleSessions.id, trader.sid))
    // Past what is remembered and its grace, a request reads the session again and waits for
    // that read: it finds the row, and answers only when let go.
    const later = now + m.sessions.SESSION_UNAVAILABLE_GRACE_MS + 1
    let answer!: () => void
    const held = new Promise<void>((resolve) => (answer = resolve))
    const chain = { from: () => chain, where: () => chain, limit: () => held.then(() => [row]) }
    const real = m.runtime.db.select.bind(m.runtime.db) as (...args: unknown[]) => unknown
    let reading = false
    const select = vi.spyOn(m.runtime.db, "select").mockImplementation(((...args: unknown[]) => {
      if (args.length > 0 || reading) return real(...args)
      reading = true
      return chain
    }) as never)
    try {
      const first = m.sessions.resolveSession(m.runtime.db, trader.sid, later)
      await vi.waitFor(() => expect(reading).toBe(true))

      const ended = await call(m.endSessionRoute, admin.cookie, { method: "DELETE", params: { id: trader.sid } })
      expect(ended.status).toBe(204)
      // A request after the end is refused at once, not joined to the read begun before it.
      const waiting = new Promise((resolve) => setTimeout(() => resolve("still waiting on the read begun before the end"), 2000))
      expect(await Promise.race([m.sessions.resolveSession(m.runtime.db, trader.sid, later), waiting])).toBeNull()
      expect((await call(m.me, trader.cookie)).status).toBe(401)

      // The read answers late, with the row as it was: the session stays over.
      answer()
      expect(await first).toBeNull()
      expect(await m.sessions.resolveSession(m.runtime.db, trader.sid, later + 1)).toBeNull()
      expect((await call(m.me, trader.cookie)).status).toBe(401)
    } finally {
      answer()
      select.mockRestore()
    }
  })

  it("a session ended by another instance (its row deleted) stops here within the recheck time, well under 5 s", async () => {
    const { sid } = await signIn("ops@example.com", "ops-password-1")
    const now = Date.now()
    expect(await m.sessions.resolveSession(m.runtime.db, sid, now)).toMatchObject({ role: "trader" })
    await m.runtime.db.delete(m.schema.consoleSessions).where(eq(m.schema.consoleSessions.id, sid))
    expect(m.sessions.SESSION_RECHECK_MS).toBeLessThanOrEqual(5000)
    expect(await m.sessions.resolveSession(m.runtime.db, sid, now + m.sessions.SESSION_RECHECK_MS)).toBeNull()
  })

  it("a database too slow to re-check a session seen valid a moment ago does not hold the request: it goes on as that staff member, and the late answer still counts", async () => {
    const { sid } = await signIn("ops@example.com", "ops-password-1")
    const now = Date.now()
    expect(await m.sessions.resolveSession(m.runtime.db, sid, now)).toMatchObject({ role: "trader" })
    const later = now + m.sessions.SESSION_RECHECK_MS + 1
    // The session's row is gone, and the database takes 1.5 s to say so.
    const chain = { from: () => chain, where: () => chain, limit: () => new Promise((resolve) => setTimeout(() => resolve([]), 1500)) }
    const select = vi.spyOn(m.runtime.db, "select").mockImplementation(() => chain as never)
    try {
      const started = performance.now()
      expect(await m.sessions.resolveSession(m.runtime.db, sid, later)).toMatchObject({ role: "trader" })
      expect(performance.now() - started).toBeLessThan(m.sessions.SESSION_SLOW_MS + 400)
      // Another request joins the read still under way: it waits no longer.
      const joined = performance.now()
      expect(await m.sessions.resolveSession(m.runtime.db, sid, later)).toMatchObject({ role: "trader" })
      expect(performance.now() - joined).toBeLessThan(m.sessions.SESSION_SLOW_MS + 400)
      await new Promise((resolve) => setTimeout(resolve, 1600))
    } finally {
      select.mockRestore()
    }
    expect(await m.sessions.resolveSession(m.runtime.db, sid, later + 1)).toBeNull()
  })

  it("requests that arrive together when the remembered answer lapses read the session once, not once each", async () => {
    const { sid } = await signIn("ops@example.com", "ops-password-1")
    const later = Date.now() + m.sessions.SESSION_RECHECK_MS + 1
    const select = vi.spyOn(m.runtime.db, "select")
    try {
      const answers = await Promise.all(Array.from({ length: 10 }, () => m.sessions.resolveSession(m.runtime.db, sid, later)))
      expect(answers.every((a) => a?.role === "trader")).toBe(true)
      // One read of the session (the sweep of expired sessions may add its own, once a minute).
      const sessionReads = select.mock.calls.filter((args) => (args as unknown[]).length === 0).length
      expect(sessionReads).toBe(1)
    } finally {
      select.mockRestore()
    }
  })

  it("a session idle for 30 minutes, or 8 hours old, is over, and its expiry is on the audit trail", async () => {
    const idle = await signIn("ops@example.com", "ops-password-1")
    // 29 minutes without a request: still open (and that request counts as one).
    const asked = Date.now() + 29 * 60_000
    expect(await m.sessions.resolveSession(m.runtime.db, idle.sid, asked)).not.toBeNull()
    const later = asked + 31 * 60_000
    expect(await m.sessions.resolveSession(m.runtime.db, idle.sid, later)).toBeNull()
    expect(await eventsOf(idle.sid)).toEqual(["session_expired", "signed_in"])

    const old = await signIn("ops@example.com", "ops-password-1")
    await m.runtime.db
      .update(m.schema.consoleSessions)
      .set({ createdAt: new Date(Date.now() - 8 * 3600_000 - 1000) })
      .where(eq(m.schema.consoleSessions.id, old.sid))
    expect(await m.sessions.sweepExpiredSessions(m.runtime.db, Date.now(), true)).toBeGreaterThanOrEqual(1)
    const [event] = await m.runtime.db
      .select()
      .from(m.schema.consoleAuthEvents)
      .where(eq(m.schema.consoleAuthEvents.sessionId, old.sid))
      .orderBy(m.schema.consoleAuthEvents.at)
    expect(event?.kind).toBe("signed_in")
    expect(await eventsOf(old.sid)).toEqual(["session_expired", "signed_in"])
  })

  it("a cookie without a session id (minted before sessions, or forged with the secret) is refused", async () => {
    const token = await encode({ token: { email: "admin@example.com", role: "admin", signedInAt: Math.floor(Date.now() / 1000) }, secret: SECRET })
    expect((await call(m.me, `next-auth.session-token=${token}`)).status).toBe(401)
  })
})
