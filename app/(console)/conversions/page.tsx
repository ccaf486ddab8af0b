import type { Metadata } from "next"
import Link from "next/link"
import { ConversionLookup } from "@/components/conversions/conversion-lookup"
import { ConversionsTable } from "@/components/conversions/conversions-table"
import { filtersFromSearch } from "@/components/conversions/filters"
import { RoleNotice } from "@/components/layout/role-gates"
import { Card } from "@/components/ui/card"
import { roleAtLeast } from "@/lib/auth/roles"
import { currentStaff } from "@/lib/auth/session"

export const metadata: Metadata = { title: "Conversions" }

export default async function ConversionsPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const staff = await currentStaff()
  if (!staff) return null
  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h1 className="text-2xl font-semibold">Conversions</h1>
        {roleAtLeast(staff.role, "trader") ? (
          <Link href="/conversions/new" className="inline-flex h-10 items-center rounded-md bg-blue-700 px-4 text-sm font-medium text-white hover:bg-blue-800">
            New conversion
          </Link>
        ) : null}
      </div>
      {roleAtLeast(staff.role, "support") ? (
        <>
          <Card title="Find a conversion">
            <ConversionLookup />
          </Card>
          <Card title="All conversions">
            <ConversionsTable initialFilters={filtersFromSearch(await searchParams)} />
          </Card>
        </>
      ) : (
        <RoleNotice needed="support" role={staff.role} what="Looking up and listing conversions" />
      )}
    </div>
  )
}
