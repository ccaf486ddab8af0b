import { encode } from "next-auth/jwt"
import type { Role } from "@/lib/auth/roles"
import { type SessionProvider, createSession } from "@/lib/auth/sessions"
import { database } from "@/lib/console/database"

/**
 * A real signed-in session for route tests: a console_sessions row in the process's
 * database and the cookie next-auth would have set for it.
 */
export async function sessionCookie(
  role: Role,
  options: { secret: string; email?: string; provider?: SessionProvider },
): Promise<string> {
  const email = options.email ?? `${role}@example.com`
  const { db } = await database()
  const sid = await createSession(db, { email, role, provider: options.provider ?? "credentials", userAgent: "vitest", address: "127.0.0.1" })
  const token = await encode({
    token: { email, role, sub: email, sid, signedInAt: Math.floor(Date.now() / 1000) },
    secret: options.secret,
    maxAge: 30 * 60,
  })
  return `next-auth.session-token=${token}`
}
