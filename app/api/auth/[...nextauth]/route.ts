import NextAuth from "next-auth"
import { getToken } from "next-auth/jwt"
import { NextRequest } from "next/server"
import { FOREIGN_HOST_DETAIL, foreignHostReason } from "@/lib/auth/host"
import { withProviderSignOut } from "@/lib/auth/oidc"
import { authOptions, throttledSignIn } from "@/lib/auth/options"
import { authSecret } from "@/lib/auth/secret"
import { requestContextOf, runWithAuthRequest } from "@/lib/auth/request-context"
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
    const refused = await throttledSignIn(new URLSearchParams(await bounded.clone().text()), context.address)
    if (refused) return refused
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
