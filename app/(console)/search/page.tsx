import type { Metadata } from "next"
import { RoleNotice } from "@/components/layout/role-gates"
import { SearchResults } from "@/components/search/search-results"
import { roleAtLeast } from "@/lib/auth/roles"
import { currentStaff } from "@/lib/auth/session"

export const metadata: Metadata = { title: "Search" }

export default async function SearchPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const staff = await currentStaff()
  if (!staff) return null
  const raw = (await searchParams).q
  const q = (Array.isArray(raw) ? raw[0] : raw) ?? ""
  return (
    <div className="space-y-6">
      <h1 className="text-2xl font-semibold">Search</h1>
      {roleAtLeast(staff.role, "support") ? <SearchResults key={q} q={q} /> : <RoleNotice needed="support" role={staff.role} what="Searching records" />}
    </div>
  )
}
