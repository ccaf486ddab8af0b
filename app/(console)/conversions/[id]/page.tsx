import type { Metadata } from "next"
import Link from "next/link"
import { ConversionDetail } from "@/components/conversions/conversion-detail"
import { RoleNotice } from "@/components/conversions/role-notice"
import { roleAtLeast } from "@/lib/auth/roles"
import { currentStaff } from "@/lib/auth/session"

export const metadata: Metadata = { title: "Conversion" }

export default async function ConversionPage({ params }: { params: Promise<{ id: string }> }) {
  const staff = await currentStaff()
  if (!staff) return null
  const { id } = await params
  return (
    <div className="space-y-6">
      <div>
        <Link href="/conversions" className="text-sm text-blue-800 underline">
          ← Conversions
        </Link>
        <h1 className="mt-1 text-2xl font-semibold">Conversion</h1>
      </div>
      {roleAtLeast(staff.role, "support") ? (
        <ConversionDetail key={id} id={id} canCancel={roleAtLeast(staff.role, "trader")} />
      ) : (
        <RoleNotice needed="support" role={staff.role} what="Looking up a conversion" />
      )}
    </div>
  )
}
