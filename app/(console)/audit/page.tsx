import type { Metadata } from "next"
import { AuditLog } from "@/components/audit/audit-log"
import { filtersFromSearch } from "@/components/audit/filters-schema"
import { Alert } from "@/components/ui/alert"
import { roleAtLeast } from "@/lib/auth/roles"
import { currentStaff } from "@/lib/auth/session"

export const metadata: Metadata = { title: "Audit" }

export default async function AuditPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const staff = await currentStaff()
  if (!staff) return null
  if (!roleAtLeast(staff.role, "admin")) {
    return (
      <div className="space-y-4">
        <h1 className="text-2xl font-semibold">Audit trail</h1>
        <Alert tone="danger" title="Not allowed">
          The audit trail needs the admin role; you are {staff.role}.
        </Alert>
      </div>
    )
  }
  return <AuditLog initialFilters={filtersFromSearch(await searchParams)} />
}
