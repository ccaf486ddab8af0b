import type { Metadata } from "next"
import { ApprovalsList } from "@/components/approvals/approvals-list"
import { PolicySection } from "@/components/approvals/policy-section"
import { NotAllowed } from "@/components/layout/role-gates"
import { roleAtLeast } from "@/lib/auth/roles"
import { currentStaff } from "@/lib/auth/session"

export const metadata: Metadata = { title: "Approvals" }

export default async function ApprovalsPage() {
  const staff = await currentStaff()
  if (!staff) return null
  if (!roleAtLeast(staff.role, "trader")) return <NotAllowed heading="Approvals" needs="Approvals need the trader or admin role" role={staff.role} />
  return (
    <div className="space-y-10">
      <ApprovalsList me={staff.email} />
      {roleAtLeast(staff.role, "admin") ? <PolicySection me={staff.email} /> : null}
    </div>
  )
}
