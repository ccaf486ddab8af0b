import type { Metadata } from "next"
import Link from "next/link"
import { RoleNotice } from "@/components/layout/role-gates"
import { TransferDetail } from "@/components/transfers/transfer-detail"
import { roleAtLeast } from "@/lib/auth/roles"
import { currentStaff } from "@/lib/auth/session"

export const metadata: Metadata = { title: "Transfer" }

export default async function TransferPage({ params }: { params: Promise<{ id: string }> }) {
  const staff = await currentStaff()
  if (!staff) return null
  const { id } = await params
  return (
    <div className="space-y-6">
      <div>
        <Link href="/transfers" className="text-sm text-blue-800 underline">
          ← Transfers
        </Link>
        <h1 className="mt-1 text-2xl font-semibold">Transfer</h1>
      </div>
      {roleAtLeast(staff.role, "support") ? (
        <TransferDetail key={id} id={id} />
      ) : (
        <RoleNotice needed="support" role={staff.role} what="Looking up a transfer" />
      )}
    </div>
  )
}
