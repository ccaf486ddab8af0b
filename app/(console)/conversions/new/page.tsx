import type { Metadata } from "next"
import Link from "next/link"
import { ConversionForm } from "@/components/conversions/conversion-form"
import { RoleNotice } from "@/components/conversions/role-notice"
import { roleAtLeast } from "@/lib/auth/roles"
import { currentStaff } from "@/lib/auth/session"

export const metadata: Metadata = { title: "New conversion" }

export default async function NewConversionPage() {
  const staff = await currentStaff()
  if (!staff) return null
  return (
    <div className="space-y-6">
      <div>
        <Link href="/conversions" className="text-sm text-blue-800 underline">
          ← Conversions
        </Link>
        <h1 className="mt-1 text-2xl font-semibold">New conversion</h1>
        <p className="text-sm text-slate-700">Mint a stablecoin from USD, or redeem one back to USD.</p>
      </div>
      {roleAtLeast(staff.role, "trader") ? (
        <ConversionForm />
      ) : (
        <RoleNotice needed="trader" role={staff.role} what="Creating a conversion" />
      )}
    </div>
  )
}
