import type { Metadata } from "next"
import Link from "next/link"
import { AuditLog } from "@/components/audit/audit-log"
import { DecisionTrail } from "@/components/audit/decision-trail"
import { SignInEvents } from "@/components/audit/sign-in-events"
import { filtersFromSearch } from "@/components/audit/filters-schema"
import { NotAllowed } from "@/components/layout/role-gates"
import { roleAtLeast } from "@/lib/auth/roles"
import { currentStaff } from "@/lib/auth/session"
import { listAuthEvents } from "@/lib/auth/sessions"
import { listDecisions } from "@/lib/console/approvals/decision-trail"
import { consoleRuntime } from "@/lib/console/runtime"
import { env } from "@/lib/env"

export const metadata: Metadata = { title: "Audit" }

export default async function AuditPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const staff = await currentStaff()
  if (!staff) return null
  if (!roleAtLeast(staff.role, "admin")) return <NotAllowed heading="Audit trail" needs="The audit trail needs the admin role" role={staff.role} />
  const search = await searchParams
  const signIns = search.view === "sign-in"
  const decisions = search.view === "decisions"
  const tab = (active: boolean) =>
    active ? "rounded-md bg-slate-900 px-3 py-1.5 text-sm font-medium text-white" : "rounded-md px-3 py-1.5 text-sm font-medium text-slate-700 hover:bg-slate-200"
  return (
    <div className="space-y-4">
      <nav aria-label="Audit trail views" className="flex gap-1">
        <Link href="/audit" className={tab(!signIns && !decisions)} aria-current={signIns || decisions ? undefined : "page"}>
          Operations
        </Link>
        <Link href="/audit?view=decisions" className={tab(decisions)} aria-current={decisions ? "page" : undefined}>
          Approval decisions
        </Link>
        <Link href="/audit?view=sign-in" className={tab(signIns)} aria-current={signIns ? "page" : undefined}>
          Sign-in events
        </Link>
      </nav>
      {decisions ? (
        <div className="space-y-4">
          <h1 className="text-2xl font-semibold">Approval decisions</h1>
          <p className="text-sm text-slate-700">
            Every approve and reject, refused attempts included: who, the outcome, the passkey used, whether the user was verified, and the digest of what was signed.
          </p>
          <DecisionTrail entries={await listDecisions((await consoleRuntime()).db, { limit: 200 })} />
        </div>
      ) : signIns ? (
        <div className="space-y-4">
          <h1 className="text-2xl font-semibold">Sign-in events</h1>
          <SignInEvents events={await listAuthEvents((await consoleRuntime()).db, { limit: 200 })} />
        </div>
      ) : (
        <AuditLog initialFilters={filtersFromSearch(search)} reconcileAfterMs={env().reconcileAfterMs} />
      )}
    </div>
  )
}
