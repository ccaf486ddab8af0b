/** Staff roles, lowest first: each may do everything the ones before it may. */
export const ROLES = ["viewer", "support", "trader", "admin"] as const
export type Role = (typeof ROLES)[number]

export function isRole(value: unknown): value is Role {
  return typeof value === "string" && (ROLES as readonly string[]).includes(value)
}

export function roleAtLeast(role: Role, minimum: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(minimum)
}

export const ROLE_DESCRIPTIONS: Record<Role, string> = {
  viewer: "reads quotes, balances, executions and conversions",
  support: "viewer, plus look-ups by id or ref_id and exports",
  trader: "support, plus executes quotes and creates and cancels conversions",
  admin: "trader, plus the audit trail and sandbox tools",
}

/** Who is signed in, as the server and the browser both see it. */
export interface Staff {
  email: string
  role: Role
}
