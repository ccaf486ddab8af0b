import type { Role } from "@/lib/auth/roles"

/** Sandbox mode's staff, one per role. They do not exist outside sandbox mode. */
export const DEMO_USERS: readonly { email: string; role: Role }[] = [
  { email: "admin@example.com", role: "admin" },
  { email: "trader@example.com", role: "trader" },
  { email: "support@example.com", role: "support" },
  { email: "viewer@example.com", role: "viewer" },
]
