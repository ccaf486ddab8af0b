import type { Metadata } from "next"
import { Suspense } from "react"
import { Overview } from "@/components/overview/overview"
import { ROLE_DESCRIPTIONS, roleAtLeast } from "@/lib/auth/roles"
import { currentStaff } from "@/lib/auth/session"
import { buildOverview } from "@/lib/console/overview"
import { consoleRuntime } from "@/lib/console/runtime"
import { serviceInfo } from "@/lib/console/service-info"
import { withinOrNull } from "@/lib/within"
import type { Overview as OverviewData } from "@/lib/schemas/overview"

export const metadata: Metadata = { title: "Overview" }

/**
 * How long the streamed page waits for the overview before it lets the browser ask. The
 * shell (heading, who is signed in) is sent at once either way: waiting only keeps the
 * overview in the same response instead of a second request.
 */
const INITIAL_WAIT_MS = 1000

export default async function HomePage() {
  const staff = await currentStaff()
  if (!staff) return null
  const service = serviceInfo()
  // The shell is sent at once and the overview streams in below it when it is built (the
  // shared caches warm: at once too), moving nothing; past INITIAL_WAIT_MS the browser asks.
  const runtime = await consoleRuntime()
  const building = buildOverview({ db: runtime.db, staff, source: runtime.overview, quotes: runtime.quotes, marketData: runtime.marketData })
  // Handled (and logged) where it is awaited; a failure before then must not count as unhandled.
  building.catch(() => undefined)
  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-baseline justify-between gap-x-6 gap-y-1">
        <h1 className="text-2xl font-semibold">Overview</h1>
        <p className="text-sm text-slate-600">
          Signed in as <span data-testid="home-email">{staff.email}</span>,{" "}
          <span data-testid="home-role" className="font-semibold" title={ROLE_DESCRIPTIONS[staff.role]}>
            {staff.role}
          </span>{" "}
          · <span data-testid="home-mode">{service.mode === "sandbox" ? "Sandbox" : "Production"}</span>: {service.description}
        </p>
      </div>
      <Suspense fallback={<p className="text-sm text-slate-600">Loading the overview…</p>}>
        <InitialOverview building={building} isAdmin={staff.role === "admin"} canApprove={roleAtLeast(staff.role, "trader")} />
      </Suspense>
    </div>
  )
}

/** The overview as built on the server within INITIAL_WAIT_MS, else the client's own first request. */
async function InitialOverview({ building, isAdmin, canApprove }: { building: Promise<OverviewData>; isAdmin: boolean; canApprove: boolean }) {
  const initial = await withinOrNull(() => building, INITIAL_WAIT_MS, "overview.initial_failed")
  return <Overview isAdmin={isAdmin} canApprove={canApprove} initial={initial} />
}
