import type { Metadata } from "next"
import { ApprovalsList } from "@/components/approvals/approvals-list"
import { PolicySection } from "@/components/approvals/policy-section"
import { Alert } from "@/components/ui/alert"
import { roleAtLeast } from "@/lib/auth/roles"
import { currentStaff } from "@/lib/auth/session"

export const metadata: Metadata = { title: "Approvals" }

export default async function ApprovalsPage() {
  const staff = await currentStaff()
  if (!staff) return null
  if (!roleAtLeast(staff.role, "trader")) {
    return (
      <div className="space-y-4">
        <h1 className="text-2xl font-semibold">Approvals</h1>
        <Alert tone="danger" title="Not allowed">
          Approvals need the trader or admin role; you are {staff.role}.
        </Alert>
      </div>
    )
  }
  return (
    <div className="space-y-10">
      <ApprovalsList me={staff.email} />
      {roleAtLeast(staff.role, "admin") ? <PolicySection /> : null}
    </div>
  )
}
