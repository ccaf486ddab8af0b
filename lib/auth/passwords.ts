import "server-only"
import { createHash, randomUUID, timingSafeEqual } from "node:crypto"
import bcrypt from "bcryptjs"
import { DEMO_USERS } from "@/lib/auth/demo-users"
import { type Role } from "@/lib/auth/roles"
import { env } from "@/lib/env"

let dummy: { cost: number; hash: Promise<string> } | undefined

/**
 * Compared against when the email is unknown, so both answers take the same time: a hash
 * of the same bcrypt cost as the configured staff's (the slowest, if they differ; 10
 * when there are none), made once, without blocking the server.
 */
export function dummyHash(hashes: readonly string[]): Promise<string> {
  const costs = hashes.map((h) => Number(h.slice(4, 6))).filter((n) => Number.isInteger(n))
  const cost = costs.length > 0 ? Math.max(...costs) : 10
  if (dummy?.cost !== cost) dummy = { cost, hash: bcrypt.hash(randomUUID(), cost) }
  return dummy.hash
}

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
  const ok = await bcrypt.compare(password, user?.passwordHash ?? (await dummyHash(config.consoleUsers.map((u) => u.passwordHash))))
  return user && ok ? { email: user.email, role: user.role } : null
}
