import "server-only"
import { DEMO_USERS } from "@/lib/auth/demo-users"
import type { Role } from "@/lib/auth/roles"
import { env } from "@/lib/env"

/**
 * The staff directory as configured now: CONSOLE_USERS, plus the demo users in sandbox
 * mode. A role change or removal there applies to open sessions on their next request.
 */
export function directoryRole(email: string): Role | null {
  const config = env()
  const normalized = email.trim().toLowerCase()
  const user = config.consoleUsers.find((u) => u.email === normalized)
  if (user) return user.role
  if (config.mode === "sandbox") return DEMO_USERS.find((u) => u.email === normalized)?.role ?? null
  return null
}
