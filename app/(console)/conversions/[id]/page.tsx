import type { Metadata } from "next"
import { ConversionDetail } from "@/components/conversions/conversion-detail"
import { ConversionPageHeading } from "@/components/conversions/page-heading"
import { RoleNotice } from "@/components/layout/role-gates"
import { roleAtLeast } from "@/lib/auth/roles"
import { currentStaff } from "@/lib/auth/session"

export const metadata: Metadata = { title: "Conversion" }

export default async function ConversionPage({ params }: { params: Promise<{ id: string }> }) {
  const staff = await currentStaff()
  if (!staff) return null
  const { id } = await params
  return (
    <div className="space-y-6">
      <ConversionPageHeading title="Conversion" />
      {roleAtLeast(staff.role, "support") ? (
        <ConversionDetail key={id} id={id} canCancel={roleAtLeast(staff.role, "trader")} />
      ) : (
        <RoleNotice needed="support" role={staff.role} what="Looking up a conversion" />
      )}
    </div>
  )
}
