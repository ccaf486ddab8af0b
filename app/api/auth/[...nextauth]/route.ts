import NextAuth from "next-auth"
import { getToken } from "next-auth/jwt"
import { NextRequest } from "next/server"
import { FOREIGN_HOST_DETAIL, foreignHostReason } from "@/lib/auth/host"
import { withProviderSignOut } from "@/lib/auth/oidc"
import { THROTTLED_PREFIX, authOptions } from "@/lib/auth/options"
import { authSecret } from "@/lib/auth/secret"
import { directoryRole } from "@/lib/auth/directory"
import { requestContextOf, runWithAuthRequest } from "@/lib/auth/request-context"
import { signInRefusal } from "@/lib/auth/throttle"
import { database } from "@/lib/console/database"
import { env } from "@/lib/env"
import { bodyTooLarge, forbiddenHost, problemResponse } from "@/lib/problem"
import { BodyTooLarge, withBoundedBody } from "@/lib/http/bounded-body"
import { log } from "@/lib/log"

/** Sign-in forms and sign-out posts are a few hundred bytes. */
const AUTH_BODY_LIMIT = 8 * 1024

type Ctx = { params: Promise<{ nextauth: string[] }> }

// GET/POST /api/auth/* - next-auth's own endpoints (sign-in, session, sign-out)
async function handler(req: NextRequest, ctx: Ctx): Promise<Response> {
  const foreign = foreignHostReason(req.headers)
  if (foreign) {
    log.warn("auth.foreign_host", { why: foreign })
    return problemResponse(forbiddenHost(FOREIGN_HOST_DETAIL))
  }
  let bounded: Request
  try {
    bounded = await withBoundedBody(req, AUTH_BODY_LIMIT)
  } catch (error) {
    if (error instanceof BodyTooLarge) return problemResponse(bodyTooLarge(error.message))
    throw error
  }
  const params = await ctx.params
  const context = requestContextOf(req)
  const action = params.nextauth.join("/")
  if (req.method === "POST" && action === "callback/credentials" && context.address) {
    // An address past its failure budget is answered before next-auth (or bcrypt) runs. The
    // body still carries `url` with the error, so next-auth's client reports it.
    const form = new URLSearchParams(await bounded.clone().text())
    const email = (form.get("email") ?? "").trim().toLowerCase()
    const { db } = await database()
    const refusal = await signInRefusal(db, { email, knownEmail: directoryRole(email) !== null, address: context.address })
    if (refusal?.kind === "address") {
      const minutes = Math.ceil(refusal.retryAfterS / 60)
      return new Response(
        JSON.stringify({
          type: "about:blank",
          title: "Too Many Requests",
          status: 429,
          code: "rate_limited",
          detail: `Too many failed sign-ins from your address. Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`,
          url: `/sign-in?error=${encodeURIComponent(`${THROTTLED_PREFIX}${refusal.retryAfterS}`)}`,
        }),
        { status: 429, headers: { "content-type": "application/problem+json", "cache-control": "no-store", "retry-after": String(refusal.retryAfterS) } },
      )
    }
  }
  const auth = NextAuth(authOptions()) as (req: NextRequest, ctx: { params: { nextauth: string[] } }) => Promise<Response>
  const forwarded = new NextRequest(bounded)
  if (req.method === "POST" && action === "signout") {
    // A single sign-on session also signs out at the provider, with its ID token as the hint.
    const token = await getToken({ req, secret: authSecret() }).catch(() => null)
    const response = await runWithAuthRequest(context, () => auth(forwarded, { params }))
    return withProviderSignOut(response, token?.idToken, env().nextAuthUrl ?? req.nextUrl.origin)
  }
  return runWithAuthRequest(context, () => auth(forwarded, { params }))
}

export { handler as GET, handler as POST }
