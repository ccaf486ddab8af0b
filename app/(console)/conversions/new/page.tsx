import type { Metadata } from "next"
import { ConversionForm } from "@/components/conversions/conversion-form"
import { ConversionPageHeading } from "@/components/conversions/page-heading"
import { RoleNotice } from "@/components/layout/role-gates"
import { roleAtLeast } from "@/lib/auth/roles"
import { currentStaff } from "@/lib/auth/session"

export const metadata: Metadata = { title: "New conversion" }

export default async function NewConversionPage() {
  const staff = await currentStaff()
  if (!staff) return null
  return (
    <div className="space-y-6">
      <ConversionPageHeading title="New conversion">
        <p className="text-sm text-slate-700">Mint a stablecoin from USD, or redeem one back to USD.</p>
      </ConversionPageHeading>
      {roleAtLeast(staff.role, "trader") ? (
        <ConversionForm />
      ) : (
        <RoleNotice needed="trader" role={staff.role} what="Creating a conversion" />
      )}
    </div>
  )
}
