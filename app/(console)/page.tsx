import type { Metadata } from "next"
import { Overview } from "@/components/overview/overview"
import { ROLE_DESCRIPTIONS, roleAtLeast } from "@/lib/auth/roles"
import { currentStaff } from "@/lib/auth/session"
import { buildOverview } from "@/lib/console/overview"
import { consoleRuntime } from "@/lib/console/runtime"
import { serviceInfo } from "@/lib/console/service-info"
import { log } from "@/lib/log"

export const metadata: Metadata = { title: "Overview" }

/** How long the page waits for the overview before sending the shell and letting the browser ask. */
const INITIAL_WAIT_MS = 250

export default async function HomePage() {
  const staff = await currentStaff()
  if (!staff) return null
  const service = serviceInfo()
  // With the shared caches warm (another dashboard is open) the overview comes with the page;
  // cold, the shell goes first and the overview arrives below it, moving nothing.
  const runtime = await consoleRuntime()
  const building = buildOverview({ db: runtime.db, staff, source: runtime.overview, quotes: runtime.quotes, marketData: runtime.marketData }).catch(
    (error: unknown) => {
      log.warn("overview.initial_failed", { error: error instanceof Error ? error.message.slice(0, 200) : "unknown error" })
      return null
    },
  )
  const initial = await Promise.race([building, new Promise<null>((resolve) => setTimeout(() => resolve(null), INITIAL_WAIT_MS))])
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
      <Overview isAdmin={staff.role === "admin"} canApprove={roleAtLeast(staff.role, "trader")} initial={initial} />
    </div>
  )
}
