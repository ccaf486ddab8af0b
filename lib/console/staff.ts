import "server-only"
import type { Role } from "@/lib/auth/roles"
import { type StaffView, listStaff, passkeyRoles } from "@/lib/auth/staff"
import type { Db } from "@/lib/db/client"
import { limitsFor, readPolicy } from "@/lib/console/policy"
import type { Limits } from "@/lib/schemas/approvals"

export interface StaffEntry extends StaffView {
  /** The approval policy's limits for this person: their own, else their role's; null when none apply. */
  limits: Limits | null
  limits_from: "person" | "role" | null
}

export interface StaffDirectory {
  items: StaffEntry[]
  /** Roles that must sign in with a passkey. */
  passkey_roles: Role[]
}

/** The staff page and GET /api/admin/staff: everyone, with their per-person limits from the policy (which stay there). */
export async function staffDirectory(db: Db, now = new Date()): Promise<StaffDirectory> {
  const [staff, stored, roles] = await Promise.all([listStaff(db, now), readPolicy(db), passkeyRoles(db)])
  return {
    items: staff.map((person) => {
      const own = stored.policy.staff_limits[person.email]
      return { ...person, limits: limitsFor(stored.policy, person), limits_from: own ? "person" : stored.policy.role_limits[person.role] ? "role" : null }
    }),
    passkey_roles: roles,
  }
}
