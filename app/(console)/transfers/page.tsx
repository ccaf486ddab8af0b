import type { Metadata } from "next"
import { RoleNotice } from "@/components/layout/role-gates"
import { Card } from "@/components/ui/card"
import { TransfersTable } from "@/components/transfers/transfers-table"
import { transferFiltersFromSearch } from "@/components/transfers/filters"
import { roleAtLeast } from "@/lib/auth/roles"
import { currentStaff } from "@/lib/auth/session"

export const metadata: Metadata = { title: "Transfers" }

export default async function TransfersPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const staff = await currentStaff()
  if (!staff) return null
  return (
    <div className="space-y-6">
      <h1 className="text-2xl font-semibold">Transfers</h1>
      {roleAtLeast(staff.role, "support") ? (
        <Card title="Deposits, withdrawals and internal transfers at the service">
          <TransfersTable initialFilters={transferFiltersFromSearch(await searchParams)} />
        </Card>
      ) : (
        <RoleNotice needed="support" role={staff.role} what="Listing transfers" />
      )}
    </div>
  )
}
