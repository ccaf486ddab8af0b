import type { Metadata } from "next"
import Link from "next/link"
import { Overview } from "@/components/overview/overview"
import { Card } from "@/components/ui/card"
import { ROLE_DESCRIPTIONS, roleAtLeast } from "@/lib/auth/roles"
import { currentStaff } from "@/lib/auth/session"
import { buildOverview } from "@/lib/console/overview"
import { consoleRuntime } from "@/lib/console/runtime"
import { serviceInfo } from "@/lib/console/service-info"
import { log } from "@/lib/log"

export const metadata: Metadata = { title: "Overview" }

export default async function HomePage() {
  const staff = await currentStaff()
  if (!staff) return null
  const service = serviceInfo()
  // The first overview is rendered here (no jump when it arrives); if the service fails, the browser asks again.
  const runtime = await consoleRuntime()
  const initial = await buildOverview({ db: runtime.db, staff, source: runtime.overview, quotes: runtime.quotes, marketData: runtime.marketData }).catch(
    (error: unknown) => {
      log.warn("overview.initial_failed", { error: error instanceof Error ? error.message.slice(0, 200) : "unknown error" })
      return null
    },
  )
  return (
    <div className="space-y-6">
      <h1 className="text-2xl font-semibold">Overview</h1>
      <Overview isAdmin={staff.role === "admin"} initial={initial} />
      <div className="grid gap-4 md:grid-cols-2">
        <Card title="You">
          <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-2 text-sm">
            <dt className="font-medium text-slate-600">Signed in as</dt>
            <dd data-testid="home-email">{staff.email}</dd>
            <dt className="font-medium text-slate-600">Role</dt>
            <dd>
              <span data-testid="home-role" className="font-semibold">
                {staff.role}
              </span>{" "}
              — {ROLE_DESCRIPTIONS[staff.role]}
            </dd>
          </dl>
        </Card>
        <Card title="Service">
          <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-2 text-sm">
            <dt className="font-medium text-slate-600">Mode</dt>
            <dd data-testid="home-mode">{service.mode === "sandbox" ? "Sandbox" : "Production"}</dd>
            <dt className="font-medium text-slate-600">Connected to</dt>
            <dd>{service.description}</dd>
          </dl>
        </Card>
      </div>
      <Card title="Where to go">
        <ul className="list-inside list-disc space-y-1 text-sm">
          <li>
            <Link className="text-blue-700 underline" href="/trade">
              Trade
            </Link>{" "}
            — live held quotes{roleAtLeast(staff.role, "trader") ? ", execute buys and sells" : ""}
          </li>
          <li>
            <Link className="text-blue-700 underline" href="/executions">
              Executions
            </Link>{" "}
            — history of quote executions
          </li>
          <li>
            <Link className="text-blue-700 underline" href="/conversions">
              Conversions
            </Link>{" "}
            — stablecoin mints and redemptions
          </li>
        </ul>
      </Card>
    </div>
  )
}
