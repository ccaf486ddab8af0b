import "server-only"
import type { NextAuthOptions } from "next-auth"
import type { TokenSet } from "openid-client"
import CredentialsProvider from "next-auth/providers/credentials"
import { safeCallback } from "@/lib/auth/callback"
import { checkPasskey, checkPassword } from "@/lib/auth/sign-in"
import { admitSso, staffRow } from "@/lib/auth/staff"
import { authRequest } from "@/lib/auth/request-context"
import { OIDC_PROVIDER_ID, oidcDiscoveryUrl } from "@/lib/auth/oidc"
import { relyingParty } from "@/lib/auth/webauthn"
import { type OidcRules, REFUSAL_REASONS, type RefusalReason, SSO_REFUSAL_ERRORS, decideSignIn, mergeClaims } from "@/lib/auth/oidc-claims"
import { isRole } from "@/lib/auth/roles"
import { authSecret } from "@/lib/auth/secret"
import { SESSION_ABSOLUTE_S, sessionIdleS, createSession, endSession, recordAuthEvent, resolveSession } from "@/lib/auth/sessions"
import { clearSignInFailures, recordSignInFailure, signInRefusal } from "@/lib/auth/throttle"
import { database } from "@/lib/console/database"
import { env } from "@/lib/env"
import { log } from "@/lib/log"
import { countSignInFailure } from "@/lib/metrics"
import { rateLimited } from "@/lib/problem"
import { PROBLEM_CONTENT_TYPE } from "@/lib/schemas/problem"

export { SESSION_ABSOLUTE_S, sessionIdleS }

/**
 * The message a refused sign-in carries to the form (next-auth passes an error thrown in
 * `authorize` on as `error`): `Locked:<when it ends>` or `Throttled:<seconds>`.
 */
export const LOCKED_PREFIX = "Locked:"
export const THROTTLED_PREFIX = "Throttled:"
/** The right secret, but this person may not sign in this way: disabled, or their role must use a passkey. */
export const DISABLED_ERROR = "Disabled"
export const PASSKEY_REQUIRED_ERROR = "PasskeyRequired"
export const PASSKEY_FAILED_ERROR = "PasskeyFailed"
/** The passkey sign-in's next-auth provider id. */
export const PASSKEY_PROVIDER_ID = "passkey"

/**
 * A credentials sign-in from an address past its failure budget, answered before next-auth
 * (or bcrypt) runs: a 429 whose body still carries next-auth's `url` with the error, so its
 * client reports it. Null: the sign-in goes on.
 */
export async function throttledSignIn(form: URLSearchParams, address: string): Promise<Response | null> {
  const email = (form.get("email") ?? "").trim().toLowerCase()
  const { db } = await database()
  const refusal = await signInRefusal(db, { email, knownEmail: (await staffRow(db, email)) !== null, address })
  if (refusal?.kind !== "address") return null
  const minutes = Math.ceil(refusal.retryAfterS / 60)
  const refused = rateLimited(`Too many failed sign-ins from your address. Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`, refusal.retryAfterS)
  return new Response(JSON.stringify({ ...refused.problem, url: `/sign-in?error=${encodeURIComponent(`${THROTTLED_PREFIX}${refusal.retryAfterS}`)}` }), {
    status: 429,
    headers: { "content-type": PROBLEM_CONTENT_TYPE, "cache-control": "no-store", ...refused.headers },
  })
}

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
        const { db } = await database()
        const who = { email, knownEmail: (await staffRow(db, email)) !== null, address: authRequest().address }
        // Refused before any password work: a locked email or a throttled address costs no hashing.
        const refusal = await signInRefusal(db, who)
        if (refusal?.kind === "address") throw new Error(`${THROTTLED_PREFIX}${refusal.retryAfterS}`)
        if (refusal?.kind === "locked") throw new Error(`${LOCKED_PREFIX}${refusal.until.toISOString()}`)
        const outcome = await checkPassword(db, email, credentials?.password ?? "")
        if (!outcome.ok && outcome.why === "bad_credentials") {
          const failure = await recordSignInFailure(db, who)
          // An email no staff member has is never logged: it may be a password typed in the wrong field.
          log.warn("auth.sign_in_refused", { email: who.knownEmail ? email : "(not a staff email)", reason: "bad credentials", locked: failure.lockedUntil !== null })
          if (failure.lockedUntil) throw new Error(`${LOCKED_PREFIX}${failure.lockedUntil.toISOString()}`)
          countSignInFailure()
          return null
        }
        await clearSignInFailures(db, email)
        if (!outcome.ok) {
          // The password was right: not a guess to count, but a refusal on the trail.
          const reason = outcome.why === "disabled" ? "disabled" : "a passkey is required for this role"
          await recordAuthEvent(db, { kind: "sign_in_failed", email, address: who.address, detail: { provider: "credentials", reason } })
          log.warn("auth.sign_in_refused", { email, reason })
          throw new Error(outcome.why === "disabled" ? DISABLED_ERROR : PASSKEY_REQUIRED_ERROR)
        }
        log.info("auth.signed_in", { email: outcome.staff.email, role: outcome.staff.role })
        return { id: outcome.staff.email, email: outcome.staff.email, role: outcome.staff.role }
      },
    }),
    CredentialsProvider({
      id: PASSKEY_PROVIDER_ID,
      name: "Passkey",
      credentials: { response: { label: "Passkey answer", type: "text" } },
      async authorize(credentials) {
        const context = authRequest()
        const { db } = await database()
        // The address's failure budget covers passkeys too (there is no email to lock before the answer is read).
        const refusal = await signInRefusal(db, { email: "", knownEmail: false, address: context.address })
        if (refusal?.kind === "address") throw new Error(`${THROTTLED_PREFIX}${refusal.retryAfterS}`)
        const rp = relyingParty(context.headers ?? new Headers(), env().nextAuthUrl)
        const outcome = await checkPasskey(db, String(credentials?.response ?? "").slice(0, 32_768), rp)
        if (!outcome.ok) {
          const email = outcome.email ?? ""
          if (outcome.block === "disabled") {
            await recordAuthEvent(db, { kind: "sign_in_failed", email, address: context.address, detail: { provider: PASSKEY_PROVIDER_ID, reason: "disabled" } })
            throw new Error(DISABLED_ERROR)
          }
          const failure = await recordSignInFailure(db, { email: email || "(passkey)", knownEmail: email !== "", address: context.address, reason: `passkey: ${outcome.why}`, detail: { provider: PASSKEY_PROVIDER_ID } })
          log.warn("auth.sign_in_refused", { email: email || "(unknown passkey)", provider: PASSKEY_PROVIDER_ID, reason: outcome.why })
          countSignInFailure()
          if (failure.lockedUntil) throw new Error(`${LOCKED_PREFIX}${failure.lockedUntil.toISOString()}`)
          throw new Error(PASSKEY_FAILED_ERROR)
        }
        await clearSignInFailures(db, outcome.staff.email)
        log.info("auth.signed_in", { email: outcome.staff.email, role: outcome.staff.role, provider: PASSKEY_PROVIDER_ID })
        return { id: outcome.staff.email, email: outcome.staff.email, role: outcome.staff.role }
      },
    }),
  ]
  if (config.oidc) {
    const oidc = config.oidc
    const rules: OidcRules = { roleClaim: oidc.roleClaim, roleList: oidc.roleList, requireVerifiedEmail: oidc.requireVerifiedEmail }
    providers.push({
      id: OIDC_PROVIDER_ID,
      name: "Single sign-on",
      type: "oauth",
      wellKnown: oidcDiscoveryUrl(oidc.issuer),
      clientId: oidc.clientId,
      clientSecret: oidc.clientSecret,
      authorization: { params: { scope: "openid email profile" } },
      // The ID token is checked (signature, issuer, audience), then userinfo is asked too:
      // in the code flow a provider at its standard settings sends the scope claims there.
      idToken: true,
      checks: ["pkce", "state"],
      userinfo: {
        async request({ tokens: parameters, client }) {
          // next-auth passes openid-client's TokenSet, typed by its plain parameters.
          const tokens = parameters as TokenSet
          const idClaims = tokens.claims() as Record<string, unknown>
          let userinfo: Record<string, unknown> | null = null
          try {
            if (tokens.access_token) userinfo = await client.userinfo(tokens)
          } catch (error) {
            log.warn("auth.oidc_userinfo_failed", { subject: idClaims.sub ?? null, error: error instanceof Error ? error.message : String(error) })
          }
          return mergeClaims(idClaims, userinfo, oidc.roleClaim)
        },
      },
      profile(profile: Record<string, unknown>, tokens: { id_token?: string }) {
        const decision = decideSignIn(profile, rules)
        return {
          id: decision.subject ?? "(no subject)",
          email: decision.email ?? "",
          role: decision.ok ? decision.role : undefined,
          subject: decision.subject,
          refusal: decision.ok ? undefined : decision.reason,
          idToken: decision.ok ? tokens.id_token : undefined,
        }
      },
    })
  }

  cached = {
    secret: authSecret(),
    providers,
    pages: { signIn: "/sign-in", error: "/sign-in" },
    session: { strategy: "jwt", maxAge: sessionIdleS() },
    jwt: { maxAge: sessionIdleS() },
    // Every next-auth message goes through the console's JSON logger (never its multi-line text).
    logger: {
      error(code, metadata) {
        // A session that is over is an everyday refusal, not an error.
        if (code === "JWT_SESSION_ERROR") log.info("auth.session_refused", { code })
        else log.warn("auth.nextauth_error", { code, ...nextAuthDetail(metadata) })
      },
      warn(code) {
        log.debug("auth.nextauth_warning", { code })
      },
      debug(code) {
        log.debug("auth.nextauth_debug", { code })
      },
    },
    events: {
      async signOut({ token }) {
        if (!token?.sid) return
        const { db } = await database()
        const sso = typeof token.idToken === "string"
        await endSession(db, String(token.sid), { kind: "signed_out", ...(sso ? { detail: { provider: OIDC_PROVIDER_ID, subject: token.sub ?? null } } : {}) })
      },
    },
    callbacks: {
      redirect({ url, baseUrl }) {
        // Only this console's own pages, resolved against its origin.
        return new URL(safeCallback(url, baseUrl), baseUrl).toString()
      },
      async signIn({ user, account }) {
        if (account?.provider !== OIDC_PROVIDER_ID) return true
        // A single-sign-on user the claims do not admit gets no session, and the page says why.
        const admitted = !user.refusal && isRole(user.role) && user.email ? { email: user.email, role: user.role } : null
        if (admitted) {
          const { db } = await database()
          // On the staff list from the first single sign-on, with the provider's role; a disabled person is refused.
          if (!(await admitSso(db, admitted.email, admitted.role))) {
            log.warn("auth.sign_in_refused", { provider: OIDC_PROVIDER_ID, subject: user.subject ?? null, email: user.email, reason: "disabled" })
            await recordAuthEvent(db, {
              kind: "sign_in_failed",
              email: admitted.email.toLowerCase(),
              address: authRequest().address,
              detail: { provider: OIDC_PROVIDER_ID, subject: user.subject ?? null, reason: "disabled" },
            })
            return `/sign-in?error=${DISABLED_ERROR}`
          }
          log.info("auth.signed_in", { provider: OIDC_PROVIDER_ID, subject: user.subject ?? null, email: user.email, role: user.role })
          return true
        }
        const reason: RefusalReason = user.refusal ?? "no_role"
        log.warn("auth.sign_in_refused", { provider: OIDC_PROVIDER_ID, subject: user.subject ?? null, email: user.email || null, reason: REFUSAL_REASONS[reason] })
        const { db } = await database()
        await recordAuthEvent(db, {
          kind: "sign_in_failed",
          email: user.email || null,
          address: authRequest().address,
          detail: { provider: OIDC_PROVIDER_ID, subject: user.subject ?? null, reason: REFUSAL_REASONS[reason] },
        })
        return `/sign-in?error=${SSO_REFUSAL_ERRORS[reason]}`
      },
      async jwt({ token, user, account }) {
        const { db } = await database()
        if (user) {
          if (!isRole(user.role) || !user.email) throw new SessionOver("no console role")
          const context = authRequest()
          token.sid = await createSession(db, {
            email: user.email,
            role: user.role,
            provider: account?.provider === OIDC_PROVIDER_ID ? "oidc" : account?.provider === PASSKEY_PROVIDER_ID ? "passkey" : "credentials",
            subject: account?.provider === OIDC_PROVIDER_ID ? (user.subject ?? null) : null,
            userAgent: context.userAgent,
            address: context.address,
          })
          token.email = user.email
          token.role = user.role
          // Kept in the encrypted session cookie only, for the provider's sign-out (id_token_hint).
          if (account?.provider === OIDC_PROVIDER_ID && user.idToken) token.idToken = user.idToken
          token.signedInAt = Math.floor(Date.now() / 1000)
          return token
        }
        // Every later use: the session row decides, and the staff table's role is the role.
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

/**
 * What a next-auth error says, without what it carries: the provider's raw response and
 * tokens stay out of the log; the message and the provider's error code are kept.
 */
function nextAuthDetail(metadata: unknown): Record<string, unknown> {
  const error = metadata instanceof Error ? metadata : metadata && typeof metadata === "object" && "error" in metadata ? (metadata).error : null
  if (!(error instanceof Error)) return {}
  const oauth = error as Error & { error?: unknown; error_description?: unknown }
  return {
    message: error.message.slice(0, 300),
    ...(typeof oauth.error === "string" ? { providerError: oauth.error } : {}),
  }
}

export function isWithinAbsoluteLifetime(signedInAt: unknown, nowS = Math.floor(Date.now() / 1000)): boolean {
  return typeof signedInAt === "number" && nowS - signedInAt < SESSION_ABSOLUTE_S && signedInAt <= nowS + 60
}
