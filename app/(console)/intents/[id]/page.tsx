import type { Metadata } from "next"
import { RoleNotice } from "@/components/layout/role-gates"
import { IntentDetail } from "@/components/intents/intent-detail"
import { roleAtLeast } from "@/lib/auth/roles"
import { currentStaff } from "@/lib/auth/session"

export const metadata: Metadata = { title: "Console intent" }

export default async function IntentPage({ params }: { params: Promise<{ id: string }> }) {
  const staff = await currentStaff()
  if (!staff) return null
  const { id } = await params
  return (
    <div className="space-y-6">
      <h1 className="text-2xl font-semibold">Console intent</h1>
      {roleAtLeast(staff.role, "support") ? (
        <IntentDetail key={id} id={id} audit={staff.role === "admin"} />
      ) : (
        <RoleNotice needed="support" role={staff.role} what="Reading the console's intents" />
      )}
    </div>
  )
}
