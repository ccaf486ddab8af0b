import "server-only"
import type { NextAuthOptions } from "next-auth"
import CredentialsProvider from "next-auth/providers/credentials"
import { safeCallback } from "@/lib/auth/callback"
import { directoryRole } from "@/lib/auth/directory"
import { verifyStaffPassword } from "@/lib/auth/passwords"
import { authRequest } from "@/lib/auth/request-context"
import { isRole } from "@/lib/auth/roles"
import { authSecret } from "@/lib/auth/secret"
import { SESSION_ABSOLUTE_S, SESSION_IDLE_S, createSession, endSession, resolveSession } from "@/lib/auth/sessions"
import { clearSignInFailures, recordSignInFailure, signInRefusal } from "@/lib/auth/throttle"
import { database } from "@/lib/console/database"
import { env } from "@/lib/env"
import { log } from "@/lib/log"
import { countSignInFailure } from "@/lib/metrics"

export { SESSION_ABSOLUTE_S, SESSION_IDLE_S }

/**
 * The message a refused sign-in carries to the form (next-auth passes an error thrown in
 * `authorize` on as `error`): `Locked:<when it ends>` or `Throttled:<seconds>`.
 */
export const LOCKED_PREFIX = "Locked:"
export const THROTTLED_PREFIX = "Throttled:"

/** Raised inside next-auth's callbacks for a session that is over; next-auth then clears the cookie. */
class SessionOver extends Error {
  override name = "SessionOver"
}

let cached: NextAuthOptions | undefined

export function authOptions(): NextAuthOptions {
  if (cached) return cached
  const config = env()
  const providers: NextAuthOptions["providers"] = [
    CredentialsProvider({
      id: "credentials",
      name: "Email and password",
      credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
      async authorize(credentials) {
        const email = (credentials?.email ?? "").trim().toLowerCase().slice(0, 320)
        const who = { email, knownEmail: directoryRole(email) !== null, address: authRequest().address }
        const { db } = await database()
        // Refused before any password work: a locked email or a throttled address costs no bcrypt.
        const refusal = await signInRefusal(db, who)
        if (refusal?.kind === "address") throw new Error(`${THROTTLED_PREFIX}${refusal.retryAfterS}`)
        if (refusal?.kind === "locked") throw new Error(`${LOCKED_PREFIX}${refusal.until.toISOString()}`)
        const staff = await verifyStaffPassword(email, credentials?.password ?? "")
        if (!staff) {
          const failure = await recordSignInFailure(db, who)
          // An email no staff member has is never logged: it may be a password typed in the wrong field.
          log.warn("auth.sign_in_refused", { email: who.knownEmail ? email : "(not a staff email)", reason: "bad credentials", locked: failure.lockedUntil !== null })
          if (failure.lockedUntil) throw new Error(`${LOCKED_PREFIX}${failure.lockedUntil.toISOString()}`)
          countSignInFailure()
          return null
        }
        await clearSignInFailures(db, email)
        log.info("auth.signed_in", { email: staff.email, role: staff.role })
        return { id: staff.email, email: staff.email, role: staff.role }
      },
    }),
  ]
  if (config.oidc) {
    const oidc = config.oidc
    providers.push({
      id: "oidc",
      name: "Single sign-on",
      type: "oauth",
      wellKnown: `${oidc.issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`,
      clientId: oidc.clientId,
      clientSecret: oidc.clientSecret,
      authorization: { params: { scope: "openid email profile" } },
      idToken: true,
      checks: ["pkce", "state"],
      profile(profile: Record<string, unknown>) {
        const claim = profile[oidc.roleClaim]
        const role = Array.isArray(claim) ? claim.find(isRole) : claim
        return {
          id: String(profile.sub),
          email: typeof profile.email === "string" ? profile.email.toLowerCase() : "",
          role: isRole(role) ? role : undefined,
        }
      },
    })
  }

  cached = {
    secret: authSecret(),
    providers,
    pages: { signIn: "/sign-in", error: "/sign-in" },
    session: { strategy: "jwt", maxAge: SESSION_IDLE_S },
    jwt: { maxAge: SESSION_IDLE_S },
    logger: {
      error(code) {
        // A session that is over is an everyday refusal, not an error.
        if (code === "JWT_SESSION_ERROR") log.info("auth.session_refused", { code })
        else log.warn("auth.nextauth_error", { code })
      },
      warn(code) {
        log.debug("auth.nextauth_warning", { code })
      },
      debug() {},
    },
    events: {
      async signOut({ token }) {
        if (!token?.sid) return
        const { db } = await database()
        await endSession(db, String(token.sid), { kind: "signed_out" })
      },
    },
    callbacks: {
      redirect({ url, baseUrl }) {
        // Only this console's own pages, resolved against its origin.
        return new URL(safeCallback(url, baseUrl), baseUrl).toString()
      },
      signIn({ user }) {
        // A single-sign-on user without a console role gets no session.
        if (!isRole(user.role) || !user.email) {
          log.warn("auth.sign_in_refused", { email: user.email ?? null, reason: "no console role" })
          return false
        }
        return true
      },
      async jwt({ token, user, account }) {
        const { db } = await database()
        if (user) {
          if (!isRole(user.role) || !user.email) throw new SessionOver("no console role")
          const context = authRequest()
          token.sid = await createSession(db, {
            email: user.email,
            role: user.role,
            provider: account?.provider === "oidc" ? "oidc" : "credentials",
            userAgent: context.userAgent,
            address: context.address,
          })
          token.email = user.email
          token.role = user.role
          token.signedInAt = Math.floor(Date.now() / 1000)
          return token
        }
        // Every later use: the session row decides, and the directory's role is the role.
        const staff = await resolveSession(db, token.sid)
        if (!staff) throw new SessionOver("the session is over")
        token.role = staff.role
        return token
      },
      session({ session, token }) {
        session.staff =
          isRole(token.role) && typeof token.email === "string" && isWithinAbsoluteLifetime(token.signedInAt)
            ? { email: token.email, role: token.role }
            : null
        return session
      },
    },
  }
  return cached
}

export function isWithinAbsoluteLifetime(signedInAt: unknown, nowS = Math.floor(Date.now() / 1000)): boolean {
  return typeof signedInAt === "number" && nowS - signedInAt < SESSION_ABSOLUTE_S && signedInAt <= nowS + 60
}
