import type { Metadata } from "next"
import Link from "next/link"
import { NotAllowed } from "@/components/layout/role-gates"
import { ListState } from "@/components/ui/list-state"
import { ReconciliationView } from "@/components/statements/reconciliation-view"
import { StatementView } from "@/components/statements/statement-view"
import { roleAtLeast } from "@/lib/auth/roles"
import { currentStaff } from "@/lib/auth/session"
import { consoleRuntime } from "@/lib/console/runtime"
import { HttpProblem } from "@/lib/problem"
import { profileStatement } from "@/lib/console/statements/statement"
import { STATEMENT_MAX_DAYS, statementQuerySchema } from "@/lib/schemas/statements"

export const metadata: Metadata = { title: "Statements" }
export const dynamic = "force-dynamic"

const control = "block w-full rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm text-slate-900 shadow-sm"

function first(value: string | string[] | undefined): string | undefined {
  const v = Array.isArray(value) ? value[0] : value
  return v === undefined || v.trim() === "" ? undefined : v.trim()
}

export default async function StatementsPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const staff = await currentStaff()
  if (!staff) return null
  if (!roleAtLeast(staff.role, "support")) return <NotAllowed heading="Statements" needs="Statements need the support role or above" role={staff.role} />
  const search = await searchParams
  const runtime = await consoleRuntime()
  const profiles = (await runtime.upstream.listProfiles({ limit: 100 })).items
  const today = new Date().toISOString().slice(0, 10)
  const chosen = { profile_id: first(search.profile_id) ?? profiles[0]?.id ?? "", from: first(search.from) ?? today, to: first(search.to) }
  const parsed = statementQuerySchema.safeParse(chosen)
  let statement: Awaited<ReturnType<typeof profileStatement>> | null = null
  let refused: string | null = null
  try {
    statement = parsed.success ? await profileStatement(runtime, parsed.data) : null
  } catch (error) {
    // A period the statement refuses (a day after today) is said on the page; anything else is the error page's.
    if (!(error instanceof HttpProblem) || error.problem.code !== "validation_failed") throw error
    refused = error.problem.detail ?? "invalid request"
  }
  const profile = profiles.find((p) => p.id === chosen.profile_id)
  const query: Record<string, string> = { profile_id: chosen.profile_id, from: chosen.from, ...(chosen.to ? { to: chosen.to } : {}) }
  return (
    <div className="space-y-4">
      <div>
        <h1 className="text-2xl font-semibold">Statements</h1>
        <p className="mt-1 text-sm text-slate-700">
          A profile&apos;s books for whole UTC days (at most {STATEMENT_MAX_DAYS}): per asset the opening and closing balance, credits, debits and fees,
          every movement with its running balance, and whether it all adds up to the balances the service showed. Balances are observed by a snapshot at
          each UTC cutoff, or the service&apos;s balance now; where an end is only worked back from records, no tie-out is claimed.
        </p>
      </div>
      <form method="get" action="/statements" className="grid grid-cols-2 items-end gap-2 sm:grid-cols-4" aria-label="Choose a statement">
        <label className="col-span-2 space-y-1 text-sm sm:col-span-1">
          <span className="block font-medium text-slate-800">Profile</span>
          <select name="profile_id" defaultValue={chosen.profile_id} className={control}>
            {profiles.map((p) => (
              <option key={p.id} value={p.id}>
                {p.nickname}
              </option>
            ))}
          </select>
        </label>
        <label className="space-y-1 text-sm">
          <span className="block font-medium text-slate-800">From (UTC day)</span>
          <input type="date" name="from" required defaultValue={chosen.from} className={control} />
        </label>
        <label className="space-y-1 text-sm">
          <span className="block font-medium text-slate-800">To (UTC day, included)</span>
          <input type="date" name="to" defaultValue={chosen.to} className={control} />
        </label>
        <div className="flex gap-2">
          <button type="submit" className="h-9 rounded-md bg-blue-700 px-3 text-sm font-medium text-white hover:bg-blue-800">
            Show
          </button>
          <Link href="/statements" className="inline-flex h-9 items-center rounded-md px-3 text-sm font-medium text-slate-700 hover:bg-slate-100">
            Today
          </Link>
        </div>
      </form>
      <ListState empty={false} noun="statements" error={refused ?? (parsed.success ? null : parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; "))} />
      {statement ? (
        <>
          <div className="flex flex-wrap items-center gap-x-4 gap-y-1">
            <p className="text-sm text-slate-700" data-testid="statement-period">
              {profile?.nickname ?? statement.profile_id}: {statement.from.slice(0, 10)}
              {statement.to.slice(0, 10) !== statement.from.slice(0, 10) ? ` to ${new Date(Date.parse(statement.to) - 1).toISOString().slice(0, 10)}` : ""} (UTC)
            </p>
            {(["csv", "pdf"] as const).map((format) => (
              <a key={format} href={`/api/statements/export?${new URLSearchParams({ ...query, format }).toString()}`} className="text-sm font-medium text-blue-700 underline" data-testid={`download-${format}`}>
                Download {format.toUpperCase()}
              </a>
            ))}
          </div>
          <StatementView statement={statement} />
          <ReconciliationView reconciliation={statement.reconciliation} />
        </>
      ) : null}
    </div>
  )
}
