import type { Metadata } from "next"
import { ExecutionsHistory } from "@/components/executions/executions-history"
import { filtersFromQuery } from "@/components/executions/filters"
import { roleAtLeast } from "@/lib/auth/roles"
import { currentStaff } from "@/lib/auth/session"

export const metadata: Metadata = { title: "Executions" }

export default async function ExecutionsPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const staff = await currentStaff()
  if (!staff) return null
  const filters = filtersFromQuery(await searchParams)
  return <ExecutionsHistory initialFilters={filters} canExport={roleAtLeast(staff.role, "support")} />
}
