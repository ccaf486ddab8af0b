import "server-only"
import { getServerSession } from "next-auth"
import { getToken } from "next-auth/jwt"
import type { NextRequest } from "next/server"
import { authOptions, isWithinAbsoluteLifetime } from "@/lib/auth/options"
import { isRole, type Staff } from "@/lib/auth/roles"
import { authSecret } from "@/lib/auth/secret"
import { decodeSessionToken } from "@/lib/auth/session-decode"

/**
 * The staff member behind a request, from the session cookie: the token is decrypted
 * and its expiry (idle) and sign-in time (absolute lifetime) checked. Null otherwise.
 */
export async function staffFromRequest(req: NextRequest): Promise<Staff | null> {
  const token = await getToken({ req, secret: authSecret(), decode: decodeSessionToken })
  if (!token || !isRole(token.role) || typeof token.email !== "string") return null
  if (!isWithinAbsoluteLifetime(token.signedInAt)) return null
  return { email: token.email, role: token.role }
}

/** The signed-in staff member for server components and pages. */
export async function currentStaff(): Promise<Staff | null> {
  const session = await getServerSession(authOptions())
  return session?.staff ?? null
}
