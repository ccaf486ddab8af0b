import "server-only"
import { getServerSession } from "next-auth"
import { getToken } from "next-auth/jwt"
import type { NextRequest } from "next/server"
import { authOptions, isWithinAbsoluteLifetime } from "@/lib/auth/options"
import type { Staff } from "@/lib/auth/roles"
import { authSecret } from "@/lib/auth/secret"
import { decodeSessionToken } from "@/lib/auth/session-decode"
import { resolveSession } from "@/lib/auth/sessions"
import { database } from "@/lib/console/database"

/**
 * The staff member behind a request: the cookie is decrypted and its expiry checked, then
 * its session row decides (signed out, ended, expired or removed: null) and the staff
 * directory gives the role as of now.
 */
export async function staffFromRequest(req: NextRequest): Promise<Staff | null> {
  const token = await getToken({ req, secret: authSecret(), decode: decodeSessionToken })
  if (!token || typeof token.email !== "string" || !token.sid) return null
  if (!isWithinAbsoluteLifetime(token.signedInAt)) return null
  const { db } = await database()
  return resolveSession(db, token.sid)
}

/**
 * How to check again, later, the session behind a request: a long-lived answer (GET
 * /api/stream) asks this on a timer, the same check as each request's (the session row,
 * the directory's role, the absolute lifetime). Null when the request has no session.
 */
export async function sessionRecheck(req: NextRequest): Promise<(() => Promise<Staff | null>) | null> {
  const token = await getToken({ req, secret: authSecret(), decode: decodeSessionToken })
  if (!token || typeof token.email !== "string" || !token.sid) return null
  const { sid, signedInAt } = token
  return async () => {
    if (!isWithinAbsoluteLifetime(signedInAt)) return null
    const { db } = await database()
    return resolveSession(db, sid)
  }
}

/** The signed-in staff member for server components and pages (the same session check, through next-auth). */
export async function currentStaff(): Promise<Staff | null> {
  const session = await getServerSession(authOptions())
  return session?.staff ?? null
}
