import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import bcrypt from "bcryptjs"
import { and, eq } from "drizzle-orm"
import { encode } from "next-auth/jwt"
import { NextRequest } from "next/server"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { assert as signAssertion, register } from "@/test/authenticator"

// Staff managed in the console (issue 35), through the real route modules and next-auth
// callbacks, on a fresh PGlite folder in sandbox mode: the demo users and CONSOLE_USERS
// are the bootstrap; invitations, role changes, disabling, removal and passkey sign-in.
const dataDir = mkdtempSync(path.join(tmpdir(), "console-staff-"))
const SECRET = "staff-tests-secret-0123456789-abcdefghijklmnop"
process.env.DATA_DIR = dataDir
process.env.NEXTAUTH_SECRET = SECRET
process.env.LOG_LEVEL = "silent"
process.env.CONSOLE_USERS = JSON.stringify([{ email: "ops@example.com", role: "support", passwordHash: bcrypt.hashSync("ops-password-1", 4) }])

type Handler = (req: NextRequest, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>

const staffRoute = await import("@/app/api/admin/staff/route")
const personRoute = await import("@/app/api/admin/staff/[email]/route")
const invitationRoute = await import("@/app/api/admin/staff/invitations/[id]/route")
const rulesRoute = await import("@/app/api/admin/staff/sign-in-rules/route")
const acceptRoute = await import("@/app/api/invitations/accept/route")
const invitationPasskeyRoute = await import("@/app/api/invitations/passkey-options/route")
const signInPasskeyRoute = await import("@/app/api/sign-in/passkey-options/route")
const me = (await import("@/app/api/me/route")).GET as Handler
const options = (await import("@/lib/auth/options")).authOptions()
const { runWithAuthRequest } = await import("@/lib/auth/request-context")
const schema = await import("@/lib/db/schema")
const runtime = await (await import("@/lib/console/runtime")).consoleRuntime()

const ORIGIN = "http://localhost"

afterAll(async () => {
  await runtime.sandbox?.stop()
  rmSync(dataDir, { recursive: true, force: true })
})

type Authorize = (c: Record<string, string>) => Promise<{ email: string; role: string } | null>
const authorizeWith = (index: number) => (options.providers[index] as unknown as { options: { authorize: Authorize } }).options.authorize

/** Signs in the way next-auth does: a provider's authorize, then the jwt callback mints the cookie. */
async function signIn(provider: "credentials" | "passkey", credentials: Record<string, string>): Promise<string> {
  const authorize = authorizeWith(provider === "credentials" ? 0 : 1)
  const user = await runWithAuthRequest({ userAgent: "vitest", address: "10.1.1.1", headers: new Headers({ host: "localhost" }) }, () => authorize(credentials))
  if (!user) throw new Error("sign-in refused")
  const jwt = options.callbacks!.jwt! as (p: Record<string, unknown>) => Promise<Record<string, unknown>>
  const token = await jwt({ token: { email: user.email, sub: user.email }, user, account: { provider } })
  return `next-auth.session-token=${await encode({ token, secret: SECRET, maxAge: 30 * 60 })}`
}

function call(handler: unknown, init: { cookie?: string; method?: string; body?: unknown; params?: Record<string, string> } = {}) {
  const headers = new Headers({ origin: ORIGIN, host: "localhost" })
  if (init.cookie) headers.set("cookie", init.cookie)
  if (init.body !== undefined) headers.set("content-type", "application/json")
  const req = new NextRequest(`${ORIGIN}/api/x`, { method: init.method ?? "GET", headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) })
  return (handler as Handler)(req, { params: Promise.resolve(init.params ?? {}) })
}

async function trail(email: string) {
  const rows = await runtime.db.select().from(schema.consoleAuthEvents).where(eq(schema.consoleAuthEvents.email, email))
  return rows.sort((a, b) => a.at.getTime() - b.at.getTime())
}

let admin: string

beforeAll(async () => {
  admin = await signIn("credentials", { email: "admin@example.com", password: "demo-password" })
}, 60_000)

async function invite(email: string, role: string): Promise<{ token: string; id: string }> {
  const res = await call(staffRoute.POST, { cookie: admin, method: "POST", body: { email, role } })
  expect(res.status, await res.clone().text()).toBe(201)
  const body = (await res.json()) as { link: string; invitation: { id: string } }
  expect(body.link).toMatch(/^http:\/\/localhost\/invitation\/[A-Za-z0-9_-]{43}$/)
  return { token: body.link.split("/").pop()!, id: body.invitation.id }
}

describe("staff in the database", () => {
  it("the demo users and CONSOLE_USERS are rows from the first start, listed with their sign-in methods and limits", async () => {
    const res = await call(staffRoute.GET, { cookie: admin })
    expect(res.status).toBe(200)
    const body = (await res.json()) as { items: { email: string; role: string; status: string; source: string; methods: string[]; active_sessions: number; last_sign_in_at: string | null }[] }
    expect(body.items.map((s) => [s.email, s.role, s.status, s.source])).toEqual([
      ["admin@example.com", "admin", "active", "demo"],
      ["ops@example.com", "support", "active", "bootstrap"],
      ["support@example.com", "support", "active", "demo"],
      ["trader@example.com", "trader", "active", "demo"],
      ["viewer@example.com", "viewer", "active", "demo"],
    ])
    const adminRow = body.items.find((s) => s.email === "admin@example.com")
    expect(adminRow).toMatchObject({ methods: ["password"], active_sessions: 1 })
    expect(adminRow?.last_sign_in_at).not.toBeNull()
  })

  it("a CONSOLE_USERS bcrypt password still signs in, and is replaced by an scrypt hash", async () => {
    await signIn("credentials", { email: "ops@example.com", password: "ops-password-1" })
    const [row] = await runtime.db.select().from(schema.consoleStaff).where(eq(schema.consoleStaff.email, "ops@example.com"))
    expect(row?.passwordHash).toMatch(/^scrypt\$17\$8\$1\$/)
    await signIn("credentials", { email: "ops@example.com", password: "ops-password-1" })
    await expect(signIn("credentials", { email: "ops@example.com", password: "ops-password-2" })).rejects.toThrow("sign-in refused")
  })

  it("an invited trader accepts with a password (a weak one refused first, changing nothing), signs in, and the link works once", async () => {
    const { token } = await invite("New.Trader@Example.com", "trader")
    const listed = (await (await call(staffRoute.GET, { cookie: admin })).json()) as { items: { email: string; status: string; invited_by: string | null }[] }
    expect(listed.items.find((s) => s.email === "new.trader@example.com")).toMatchObject({ status: "invited", invited_by: "admin@example.com" })
    await expect(signIn("credentials", { email: "new.trader@example.com", password: "anything-at-all" })).rejects.toThrow("sign-in refused")

    const weak = await call(acceptRoute.POST, { method: "POST", body: { token, password: "password1234" } })
    expect(weak.status).toBe(400)
    expect(await weak.json()).toMatchObject({ code: "validation_failed", meta: { fields: { password: expect.stringMatching(/^is too easy to guess/) as string } } })
    const short = await call(acceptRoute.POST, { method: "POST", body: { token, password: "Short-1!" } })
    expect(await short.json()).toMatchObject({ meta: { fields: { password: "must be at least 12 characters" } } })

    const accepted = await call(acceptRoute.POST, { method: "POST", body: { token, password: "Orchid-Tandem-Harbor-42" } })
    expect(accepted.status, await accepted.clone().text()).toBe(200)
    const cookie = await signIn("credentials", { email: "new.trader@example.com", password: "Orchid-Tandem-Harbor-42" })
    expect(await (await call(me, { cookie })).json()).toMatchObject({ email: "new.trader@example.com", role: "trader" })

    const again = await call(acceptRoute.POST, { method: "POST", body: { token, password: "Another-Good-Phrase-77" } })
    expect(again.status).toBe(410)
    expect(await again.json()).toMatchObject({ code: "invitation_unusable", meta: { reason: "used" } })
    await expect(signIn("credentials", { email: "new.trader@example.com", password: "Another-Good-Phrase-77" })).rejects.toThrow("sign-in refused")
  })

  it("a withdrawn or expired invitation is refused and changes nothing", async () => {
    const withdrawn = await invite("gone@example.com", "viewer")
    expect((await call(invitationRoute.DELETE, { cookie: admin, method: "DELETE", params: { id: withdrawn.id } })).status).toBe(204)
    const refused = await call(acceptRoute.POST, { method: "POST", body: { token: withdrawn.token, password: "Orchid-Tandem-Harbor-42" } })
    expect(refused.status).toBe(410)
    expect(await refused.json()).toMatchObject({ code: "invitation_unusable", meta: { reason: "withdrawn" } })
    expect(await runtime.db.select().from(schema.consoleStaff).where(eq(schema.consoleStaff.email, "gone@example.com"))).toEqual([])

    const expired = await invite("late@example.com", "viewer")
    await runtime.db.update(schema.consoleStaffInvitations).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(schema.consoleStaffInvitations.id, expired.id))
    const late = await call(acceptRoute.POST, { method: "POST", body: { token: expired.token, password: "Orchid-Tandem-Harbor-42" } })
    expect(await late.json()).toMatchObject({ code: "invitation_unusable", meta: { reason: "expired" } })
    const [row] = await runtime.db.select().from(schema.consoleStaff).where(eq(schema.consoleStaff.email, "late@example.com"))
    expect(row).toMatchObject({ status: "invited", passwordHash: null })

    const stored = await runtime.db.select({ hash: schema.consoleStaffInvitations.tokenHash }).from(schema.consoleStaffInvitations)
    expect(stored.every((r) => /^[0-9a-f]{64}$/.test(r.hash) && r.hash !== expired.token)).toBe(true)
  })

  it("inviting someone already on the staff is refused, and on the trail", async () => {
    const res = await call(staffRoute.POST, { cookie: admin, method: "POST", body: { email: "trader@example.com", role: "admin" } })
    expect(res.status).toBe(409)
    expect(await res.json()).toMatchObject({ code: "staff_exists" })
    const [last] = (await trail("trader@example.com")).filter((e) => e.kind === "staff_invited")
    expect(last).toMatchObject({ actor: "admin@example.com", detail: { outcome: "staff_exists" } })
  })

  it("a demotion applies on the person's next request; disabling ends their session at once and refuses their password; each change is audited with before and after", async () => {
    const cookie = await signIn("credentials", { email: "trader@example.com", password: "demo-password" })
    expect(await (await call(me, { cookie })).json()).toMatchObject({ role: "trader" })
    const demoted = await call(personRoute.PATCH, { cookie: admin, method: "PATCH", body: { role: "viewer" }, params: { email: "trader@example.com" } })
    expect(demoted.status).toBe(200)
    expect(await (await call(me, { cookie })).json()).toMatchObject({ role: "viewer" })

    const disabled = await call(personRoute.PATCH, { cookie: admin, method: "PATCH", body: { status: "disabled" }, params: { email: "trader@example.com" } })
    expect(await disabled.json()).toMatchObject({ status: "disabled", active_sessions: 0 })
    expect((await call(me, { cookie })).status).toBe(401)
    await expect(signIn("credentials", { email: "trader@example.com", password: "demo-password" })).rejects.toThrow("Disabled")

    const changes = (await trail("trader@example.com")).filter((e) => e.kind === "staff_changed").map((e) => [e.actor, e.detail])
    expect(changes).toEqual([
      ["admin@example.com", { before: { role: "trader", status: "active" }, after: { role: "viewer", status: "active" }, outcome: "done" }],
      ["admin@example.com", { before: { role: "viewer", status: "active" }, after: { role: "viewer", status: "disabled" }, outcome: "done" }],
    ])
    expect((await trail("trader@example.com")).some((e) => e.kind === "session_ended" && e.detail?.reason === "disabled by an admin")).toBe(true)

    await call(personRoute.PATCH, { cookie: admin, method: "PATCH", body: { status: "active", role: "trader" }, params: { email: "trader@example.com" } })
    await signIn("credentials", { email: "trader@example.com", password: "demo-password" })
  })

  it("the last active admin cannot be demoted, disabled or removed: each attempt refused with last_admin and on the trail", async () => {
    for (const [handler, method, body] of [
      [personRoute.PATCH, "PATCH", { role: "trader" }],
      [personRoute.PATCH, "PATCH", { status: "disabled" }],
      [personRoute.DELETE, "DELETE", undefined],
    ] as const) {
      const res = await call(handler, { cookie: admin, method, body, params: { email: "admin@example.com" } })
      expect(res.status).toBe(409)
      expect(await res.json()).toMatchObject({ code: "last_admin" })
    }
    const refusals = (await trail("admin@example.com")).filter((e) => e.detail?.outcome === "last_admin").map((e) => e.kind)
    expect(refusals).toEqual(["staff_changed", "staff_changed", "staff_removed"])
    expect(await (await call(me, { cookie: admin })).json()).toMatchObject({ role: "admin" })
  })

  it("removing someone ends their sessions at once, they cannot sign in, and the removal is on the trail", async () => {
    const cookie = await signIn("credentials", { email: "support@example.com", password: "demo-password" })
    expect((await call(personRoute.DELETE, { cookie: admin, method: "DELETE", params: { email: "support@example.com" } })).status).toBe(204)
    expect((await call(me, { cookie })).status).toBe(401)
    await expect(signIn("credentials", { email: "support@example.com", password: "demo-password" })).rejects.toThrow("sign-in refused")
    expect((await trail("support@example.com")).find((e) => e.kind === "staff_removed")).toMatchObject({ actor: "admin@example.com", detail: { before: { role: "support", status: "active" }, after: null } })
  })

  it("an invited person accepts with a passkey only, signs in with it (discoverable), and a role that requires passkeys refuses passwords", async () => {
    const { token } = await invite("keyholder@example.com", "trader")
    const optionsRes = await call(invitationPasskeyRoute.POST, { method: "POST", body: { token } })
    expect(optionsRes.status).toBe(200)
    const { credential, response } = register((await optionsRes.json()) as { challenge: string; rp: { id?: string } }, ORIGIN)
    const accepted = await call(acceptRoute.POST, { method: "POST", body: { token, passkey: { name: "Laptop", response } } })
    expect(accepted.status, await accepted.clone().text()).toBe(200)
    expect(await accepted.json()).toMatchObject({ email: "keyholder@example.com", role: "trader", password: false, passkey: true })

    const challenge = ((await (await call(signInPasskeyRoute.POST, { method: "POST" })).json()) as { challenge: string }).challenge
    const answer = JSON.stringify(signAssertion(credential, challenge, ORIGIN))
    const cookie = await signIn("passkey", { response: answer })
    expect(await (await call(me, { cookie })).json()).toMatchObject({ email: "keyholder@example.com", role: "trader" })
    // The challenge was taken: the same answer again is refused.
    await expect(signIn("passkey", { response: answer })).rejects.toThrow("PasskeyFailed")
    const [session] = await runtime.db.select().from(schema.consoleSessions).where(and(eq(schema.consoleSessions.staffEmail, "keyholder@example.com")))
    expect(session?.provider).toBe("passkey")

    const rules = await call(rulesRoute.PUT, { cookie: admin, method: "PUT", body: { passkey_roles: ["trader"] } })
    expect(await rules.json()).toEqual({ passkey_roles: ["trader"] })
    await expect(signIn("credentials", { email: "trader@example.com", password: "demo-password" })).rejects.toThrow("PasskeyRequired")
    await call(rulesRoute.PUT, { cookie: admin, method: "PUT", body: { passkey_roles: [] } })
    await signIn("credentials", { email: "trader@example.com", password: "demo-password" })
    // No active admin has a passkey: requiring them of admins would lock the team out.
    const lockout = await call(rulesRoute.PUT, { cookie: admin, method: "PUT", body: { passkey_roles: ["admin"] } })
    expect(lockout.status).toBe(409)
    expect(await lockout.json()).toMatchObject({ code: "last_admin" })
    await signIn("credentials", { email: "admin@example.com", password: "demo-password" })
  })

  it("single sign-on users are rows from their first sign-in, with the provider's role; a disabled one is refused; a provider's refusal takes away their standing", async () => {
    const { admitSso } = await import("@/lib/auth/staff")
    const { currentRoles } = await import("@/lib/auth/standing")
    const { recordAuthEvent } = await import("@/lib/auth/sessions")
    expect(await admitSso(runtime.db, "SSO.User@example.com", "trader")).toBe("trader")
    const [row] = await runtime.db.select().from(schema.consoleStaff).where(eq(schema.consoleStaff.email, "sso.user@example.com"))
    expect(row).toMatchObject({ role: "trader", status: "active", source: "sso" })
    expect((await currentRoles(runtime.db, ["sso.user@example.com"])).get("sso.user@example.com")).toBe("trader")
    await recordAuthEvent(runtime.db, { kind: "sign_in_failed", email: "sso.user@example.com", detail: { provider: "oidc", subject: "x", reason: "no console role" } })
    expect((await currentRoles(runtime.db, ["sso.user@example.com"])).get("sso.user@example.com")).toBeNull()
    // The provider gives a role again: written back, on the trail as a change by single sign-on.
    expect(await admitSso(runtime.db, "sso.user@example.com", "viewer")).toBe("viewer")
    await recordAuthEvent(runtime.db, { kind: "signed_in", email: "sso.user@example.com", detail: { provider: "oidc", role: "viewer" } })
    expect((await currentRoles(runtime.db, ["sso.user@example.com"])).get("sso.user@example.com")).toBe("viewer")
    await call(personRoute.PATCH, { cookie: admin, method: "PATCH", body: { status: "disabled" }, params: { email: "sso.user@example.com" } })
    expect(await admitSso(runtime.db, "sso.user@example.com", "admin")).toBeNull()
    expect((await currentRoles(runtime.db, ["sso.user@example.com"])).get("sso.user@example.com")).toBeNull()
  })

  it("bad input names the field and changes nothing; non-admins are refused", async () => {
    const bad = await call(staffRoute.POST, { cookie: admin, method: "POST", body: { email: "not-an-email", role: "boss" } })
    expect(bad.status).toBe(400)
    expect(await bad.json()).toMatchObject({ code: "validation_failed", meta: { fields: { email: expect.any(String) as string, role: expect.stringMatching(/^must be one of/) as string } } })
    const viewer = await signIn("credentials", { email: "viewer@example.com", password: "demo-password" })
    expect((await call(staffRoute.GET, { cookie: viewer })).status).toBe(403)
  })
})
