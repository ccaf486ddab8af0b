import type { Metadata } from "next"
import { ExecutionDetail } from "@/components/executions/execution-detail"
import { roleAtLeast } from "@/lib/auth/roles"
import { currentStaff } from "@/lib/auth/session"

export const metadata: Metadata = { title: "Execution" }

export default async function ExecutionPage({ params }: { params: Promise<{ profileId: string; id: string }> }) {
  const staff = await currentStaff()
  if (!staff) return null
  const { profileId, id } = await params
  return <ExecutionDetail profileId={profileId} id={id} story={roleAtLeast(staff.role, "support")} />
}
