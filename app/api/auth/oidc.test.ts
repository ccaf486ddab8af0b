import { mkdtempSync, rmSync } from "node:fs"
import http from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import path from "node:path"
import { eq } from "drizzle-orm"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

// Single sign-on through the real next-auth provider and callbacks: the claims of a
// provider at its standard settings (email and role only from userinfo), refusals on the
// audit trail with the subject, and the sign-out that continues at the provider. The
// provider's discovery document is served from a loopback port.
const dataDir = mkdtempSync(path.join(tmpdir(), "console-oidc-"))
let issuer = ""
const discovery = http.createServer((req, res) => {
  res.setHeader("content-type", "application/json")
  res.end(JSON.stringify({ issuer, end_session_endpoint: `${issuer}/session/end`, authorization_endpoint: `${issuer}/auth` }))
})

async function modules() {
  return {
    options: (await import("@/lib/auth/options")).authOptions(),
    oidc: await import("@/lib/auth/oidc"),
    runtime: await (await import("@/lib/console/runtime")).consoleRuntime(),
    schema: await import("@/lib/db/schema"),
  }
}
let m: Awaited<ReturnType<typeof modules>>

beforeAll(async () => {
  await new Promise<void>((resolve) => discovery.listen(0, "127.0.0.1", resolve))
  issuer = `http://127.0.0.1:${(discovery.address() as AddressInfo).port}`
  process.env.DATA_DIR = dataDir
  process.env.NEXTAUTH_SECRET = "oidc-tests-secret-0123456789-abcdefghijklmn"
  process.env.LOG_LEVEL = "silent"
  process.env.OIDC_ISSUER = issuer
  process.env.OIDC_CLIENT_ID = "console"
  process.env.OIDC_CLIENT_SECRET = "oidc-client-secret-for-tests"
  m = await modules()
}, 60_000)

afterAll(async () => {
  await m.runtime.sandbox?.stop()
  discovery.close()
  rmSync(dataDir, { recursive: true, force: true })
})

interface OidcProvider {
  userinfo: { request(p: { tokens: unknown; client: unknown; provider: unknown }): Promise<Record<string, unknown>> }
  profile(profile: Record<string, unknown>, tokens: { id_token?: string }): Record<string, unknown>
}

const ID_TOKEN = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1LTcifQ.c2lnbmF0dXJl"

/** What next-auth makes of a provider's answer: the ID token's claims and userinfo's, then the profile. */
async function userFor(idClaims: Record<string, unknown>, userinfo: Record<string, unknown>) {
  const provider = m.options.providers.find((p) => p.id === "oidc") as unknown as OidcProvider
  const tokens = { access_token: "at", id_token: ID_TOKEN, claims: () => idClaims }
  const client = { userinfo: () => Promise.resolve(userinfo) }
  const profile = await provider.userinfo.request({ tokens, client, provider })
  return provider.profile(profile, tokens)
}

const signInCallback = () => m.options.callbacks!.signIn! as (p: Record<string, unknown>) => Promise<boolean | string>
const jwtCallback = () => m.options.callbacks!.jwt! as (p: Record<string, unknown>) => Promise<Record<string, unknown>>

async function authEvents(kind: string) {
  return m.runtime.db.select().from(m.schema.consoleAuthEvents).where(eq(m.schema.consoleAuthEvents.kind, kind))
}

describe("single sign-on through next-auth", () => {
  it("signs in a user whose email and role come only from userinfo, keeps the ID token out of the session, and audits the subject", async () => {
    const user = await userFor({ sub: "u-7", iss: issuer }, { sub: "u-7", email: "Trader@Example.test", email_verified: true, console_role: "trader" })
    expect(user).toMatchObject({ id: "u-7", email: "trader@example.test", role: "trader", subject: "u-7" })
    const account = { provider: "oidc", type: "oauth" }
    expect(await signInCallback()({ user, account })).toBe(true)
    const token = await jwtCallback()({ token: { sub: "u-7", email: user.email }, user, account })
    expect(token).toMatchObject({ email: "trader@example.test", role: "trader", idToken: ID_TOKEN })
    const session = (m.options.callbacks!.session! as unknown as (p: Record<string, unknown>) => Record<string, unknown>)({ session: {}, token })
    expect(JSON.stringify(session)).not.toContain(ID_TOKEN)
    expect(session).toEqual({ staff: { email: "trader@example.test", role: "trader" } })
    const [row] = await m.runtime.db.select().from(m.schema.consoleSessions).where(eq(m.schema.consoleSessions.id, String(token.sid)))
    expect(row).toMatchObject({ staffEmail: "trader@example.test", role: "trader", provider: "oidc" })
    const signedIn = (await authEvents("signed_in")).find((e) => e.sessionId === token.sid)
    expect(signedIn?.detail).toEqual({ role: "trader", provider: "oidc", subject: "u-7" })

    // Sign-out: the session ends, with the subject on the trail.
    await m.options.events!.signOut!({ token: token, session: undefined as never })
    const signedOut = (await authEvents("signed_out")).find((e) => e.sessionId === token.sid)
    expect(signedOut?.detail).toEqual({ role: "trader", provider: "oidc", subject: "u-7" })
  })

  it("refuses no role, an unknown role and an unverified email with the reason on the page and the subject on the trail", async () => {
    const cases = [
      { sub: "u-none", userinfo: { email: "n@example.test", email_verified: true }, error: "SsoNoRole", reason: "no console role" },
      { sub: "u-odd", userinfo: { email: "o@example.test", email_verified: true, console_role: "owner" }, error: "SsoUnknownRole", reason: "a console role this console does not know" },
      { sub: "u-unv", userinfo: { email: "admin@example.test", email_verified: false, console_role: "admin" }, error: "SsoEmailNotVerified", reason: "the provider has not verified the email" },
      { sub: "u-two", userinfo: { email: "t@example.test", email_verified: true, console_role: ["viewer", "admin"] }, error: "SsoAmbiguousRole", reason: "several console roles (OIDC_ROLE_LIST=refuse)" },
    ]
    for (const c of cases) {
      // The ID token claims a verified email (and admin, where userinfo has a role): userinfo's answer decides.
      const fromToken = { sub: c.sub, email: c.userinfo.email, email_verified: true, ...("console_role" in c.userinfo ? { console_role: "admin" } : {}) }
      const user = await userFor(fromToken, { sub: c.sub, ...c.userinfo })
      expect(await signInCallback()({ user, account: { provider: "oidc", type: "oauth" } })).toBe(`/sign-in?error=${c.error}`)
      const event = (await authEvents("sign_in_failed")).find((e) => e.detail?.subject === c.sub)
      expect(event?.detail).toEqual({ provider: "oidc", subject: c.sub, reason: c.reason })
      // An unverified address is never recorded as the person's email.
      expect(event?.email).toBe(c.error === "SsoEmailNotVerified" ? null : c.userinfo.email)
    }
  })

  it("sends a single sign-on sign-out on to the provider's end_session_endpoint with the ID token and the sign-in page", async () => {
    const answer = new Response(JSON.stringify({ url: "http://localhost:3000/sign-in" }), {
      headers: [
        ["content-type", "application/json"],
        ["set-cookie", "next-auth.session-token=; Max-Age=0; Path=/"],
        ["set-cookie", "next-auth.csrf-token=x; Path=/"],
      ],
    })
    const res = await m.oidc.withProviderSignOut(answer, ID_TOKEN, "http://localhost:3000")
    const { url } = (await res.json()) as { url: string }
    const target = new URL(url)
    expect(`${target.origin}${target.pathname}`).toBe(`${issuer}/session/end`)
    expect(target.searchParams.get("id_token_hint")).toBe(ID_TOKEN)
    expect(target.searchParams.get("post_logout_redirect_uri")).toBe("http://localhost:3000/sign-in")
    expect(target.searchParams.get("client_id")).toBe("console")
    expect(res.headers.getSetCookie()).toHaveLength(2)

    // A plain form post's redirect goes there too; a password session's sign-out is left alone.
    const redirected = await m.oidc.withProviderSignOut(new Response(null, { status: 302, headers: { location: "/sign-in" } }), ID_TOKEN, "http://localhost:3000")
    expect(redirected.headers.get("location")).toContain(`${issuer}/session/end?id_token_hint=`)
    const plain = new Response(JSON.stringify({ url: "http://localhost:3000/sign-in" }), { headers: { "content-type": "application/json" } })
    expect(await m.oidc.withProviderSignOut(plain, undefined, "http://localhost:3000")).toBe(plain)
  })
})
