import { getToken } from "next-auth/jwt"
import { type NextRequest, NextResponse } from "next/server"
import { FOREIGN_HOST_DETAIL, foreignHostReason } from "@/lib/auth/host"
import { authSecret } from "@/lib/auth/secret"
import { decodeSessionToken } from "@/lib/auth/session-decode"
import { env } from "@/lib/env"
import type { ConsoleProblemCode } from "@/lib/schemas/problem-codes"

/** A problem answered before any route handler (lib/problem.ts builds the rest). */
function refusal(status: 400 | 403, code: ConsoleProblemCode, title: string, detail: string): NextResponse {
  return new NextResponse(JSON.stringify({ type: "about:blank", title, status, code, detail }), {
    status,
    headers: { "content-type": "application/problem+json", "cache-control": "no-store" },
  })
}

/**
 * Pages only: a per-request CSP nonce, and a redirect to /sign-in for visits without a
 * session. This is convenience, not security: every route handler checks the session
 * itself (withStaff) and every console page checks it again in its layout.
 */
export async function proxy(req: NextRequest) {
  const { pathname, search } = req.nextUrl
  if (!decodesCleanly(pathname)) {
    return refusal(400, "validation_failed", "Bad Request", "The path has malformed percent-encoding (a % must start a UTF-8 byte as two hex digits).")
  }
  // API and sandbox paths reach here only when they hold a % (see the matcher); the
  // route handlers themselves do the rest.
  if (pathname.startsWith("/api/") || pathname.startsWith("/sandbox/")) return NextResponse.next()
  if (foreignHostReason(req.headers)) {
    return refusal(403, "forbidden_host", "Forbidden", FOREIGN_HOST_DETAIL)
  }
  const nonce = btoa(crypto.randomUUID())
  const dev = env().nodeEnv === "development"
  const csp = [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src 'self'${dev ? " ws: wss:" : ""}`,
    "frame-ancestors 'none'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
  ].join("; ")

  // Signed out by design: the sign-in page, and an invitation link (its token is the credential).
  if (pathname !== "/sign-in" && !pathname.startsWith("/invitation/")) {
    const token = await getToken({ req, secret: authSecret(), decode: decodeSessionToken })
    if (!token) {
      const url = req.nextUrl.clone()
      url.pathname = "/sign-in"
      url.search = `?callbackUrl=${encodeURIComponent(pathname + search)}`
      return NextResponse.redirect(url)
    }
  }

  const headers = new Headers(req.headers)
  headers.set("x-nonce", nonce)
  headers.set("x-console-path", pathname + search)
  headers.set("content-security-policy", csp)
  const res = NextResponse.next({ request: { headers } })
  res.headers.set("content-security-policy", csp)
  if (req.headers.get("x-forwarded-proto") === "https") {
    res.headers.set("strict-transport-security", "max-age=63072000; includeSubDomains")
  }
  return res
}

/** Whether a path's percent-encoding decodes (Next's own decoding of route params fails with a 500 otherwise). */
function decodesCleanly(pathname: string): boolean {
  try {
    decodeURIComponent(pathname)
    return true
  } catch {
    return false
  }
}

export const config = {
  // Everything but the API, the sandbox, Next's assets and the files of public/: every
  // other path may render a page, whatever it ends with (/conversions/abc.js), so it gets its CSP.
  // API and sandbox paths holding a % come here too, only to have malformed encoding
  // refused with a 400 problem: Next would answer it 500 before any route handler ran.
  matcher: ["/((?!api/|sandbox/|_next/|icon\\.svg$|logo\\.svg$|robots\\.txt$|favicon\\.ico$).*)", "/:area(api|sandbox)/:rest(.*%.*)"],
}
