import "server-only"
import type { NextAuthOptions } from "next-auth"
import CredentialsProvider from "next-auth/providers/credentials"
import { verifyStaffPassword } from "@/lib/auth/passwords"
import { isRole } from "@/lib/auth/roles"
import { authSecret } from "@/lib/auth/secret"
import { env } from "@/lib/env"
import { log } from "@/lib/log"
import { recordSignInFailure } from "@/lib/metrics"

/** Idle sign-out: the session cookie lives this long after the last activity. */
export const SESSION_IDLE_S = 30 * 60
/** Absolute lifetime of a sign-in, whatever the activity. */
export const SESSION_ABSOLUTE_S = 8 * 60 * 60

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
        const email = credentials?.email ?? ""
        const staff = await verifyStaffPassword(email, credentials?.password ?? "")
        if (!staff) {
          log.warn("auth.sign_in_refused", { email: email.slice(0, 200), reason: "bad credentials" })
          recordSignInFailure()
          return null
        }
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
    callbacks: {
      signIn({ user }) {
        // A single-sign-on user without a console role gets no session.
        if (!isRole(user.role) || !user.email) {
          log.warn("auth.sign_in_refused", { email: user.email ?? null, reason: "no console role" })
          return false
        }
        return true
      },
      jwt({ token, user }) {
        if (user) {
          token.email = user.email
          token.role = user.role
          token.signedInAt = Math.floor(Date.now() / 1000)
        }
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
