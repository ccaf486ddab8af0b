import "server-only"
import { createHash, timingSafeEqual } from "node:crypto"
import bcrypt from "bcryptjs"
import { DEMO_USERS } from "@/lib/auth/demo-users"
import { type Role } from "@/lib/auth/roles"
import { env } from "@/lib/env"

// Compared against when the email is unknown, so both answers take the same time.
const DUMMY_HASH = "$2b$10$U.tbyIgy9q07Jwu7.T8NAu2rAPYo60JcWGQP23Nlp6/g.KH4evx2O"

function sameSecret(a: string, b: string): boolean {
  const x = createHash("sha256").update(a).digest()
  const y = createHash("sha256").update(b).digest()
  return timingSafeEqual(x, y)
}

/**
 * Checks an email and password against the staff this mode knows: the demo users in
 * sandbox mode, CONSOLE_USERS (bcrypt) always. Null for any failure, whatever the cause.
 */
export async function verifyStaffPassword(emailInput: string, password: string): Promise<{ email: string; role: Role } | null> {
  const config = env()
  const email = emailInput.trim().toLowerCase()
  if (config.mode === "sandbox") {
    const demo = DEMO_USERS.find((u) => u.email === email)
    if (demo) return sameSecret(password, config.demoPassword) ? { email: demo.email, role: demo.role } : null
  }
  const user = config.consoleUsers.find((u) => u.email === email)
  const ok = await bcrypt.compare(password, user?.passwordHash ?? DUMMY_HASH)
  return user && ok ? { email: user.email, role: user.role } : null
}
