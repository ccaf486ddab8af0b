import type { Metadata } from "next"
import { NotAllowed } from "@/components/layout/role-gates"
import { StaffAdmin } from "@/components/staff/staff-admin"
import { roleAtLeast } from "@/lib/auth/roles"
import { currentStaff } from "@/lib/auth/session"
import { consoleRuntime } from "@/lib/console/runtime"
import { staffDirectory } from "@/lib/console/staff"

export const metadata: Metadata = { title: "Staff" }
export const dynamic = "force-dynamic"

export default async function StaffPage() {
  const staff = await currentStaff()
  if (!staff) return null
  if (!roleAtLeast(staff.role, "admin")) return <NotAllowed heading="Staff" needs="Staff management needs the admin role" role={staff.role} />
  const { db } = await consoleRuntime()
  const directory = await staffDirectory(db)
  return (
    <div className="space-y-4">
      <div>
        <h1 className="text-2xl font-semibold">Staff</h1>
        <p className="mt-1 text-sm text-slate-700">
          Everyone who may sign in. A role change applies on the person&apos;s next request; disabling or removing someone ends their sessions at once, on
          every instance. The last active admin cannot be demoted, disabled or removed. Every change is on the audit trail (sign-in events) with before and
          after. Limits come from the approval policy (Approvals).
        </p>
      </div>
      <StaffAdmin items={directory.items} passkeyRoles={directory.passkey_roles} self={staff.email} />
    </div>
  )
}
