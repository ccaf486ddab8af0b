import type { Metadata } from "next"
import { DeliveriesList, LargeOrderSettings, TeamChannels } from "@/components/admin/deliveries"
import { NotAllowed } from "@/components/layout/role-gates"
import { roleAtLeast } from "@/lib/auth/roles"
import { currentStaff } from "@/lib/auth/session"

export const metadata: Metadata = { title: "Deliveries" }

export default async function DeliveriesPage() {
  const staff = await currentStaff()
  if (!staff) return null
  if (!roleAtLeast(staff.role, "admin")) return <NotAllowed heading="Deliveries" needs="Deliveries need the admin role" role={staff.role} />
  return (
    <div className="space-y-8">
      <section className="space-y-3" aria-labelledby="deliveries-heading">
        <h1 id="deliveries-heading" className="text-2xl font-semibold">Deliveries</h1>
        <p className="text-sm text-slate-700">
          Every notification sent by email, to a chat channel or to a signed webhook: retried with growing pauses, and parked with its error after the tenth failure. Retry sends a parked one again.
        </p>
        <DeliveriesList />
      </section>
      <section className="space-y-3" aria-labelledby="channels-heading">
        <h2 id="channels-heading" className="text-lg font-semibold">Team channels</h2>
        <TeamChannels />
      </section>
      <section className="space-y-3" aria-labelledby="large-order-heading">
        <h2 id="large-order-heading" className="text-lg font-semibold">Large orders</h2>
        <p className="text-sm text-slate-700">
          An execution or conversion placed or asked for through the console at or over its currency&apos;s size tells the admins (in the inbox, by email, and on the team channels that carry large orders). Every change is on the audit trail.
        </p>
        <LargeOrderSettings />
      </section>
    </div>
  )
}
