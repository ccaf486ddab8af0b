import type { Metadata } from "next"
import { TradeDesk } from "@/components/trade/trade-desk"
import { roleAtLeast } from "@/lib/auth/roles"
import { currentStaff } from "@/lib/auth/session"

export const metadata: Metadata = { title: "Trade" }

export default async function TradePage() {
  const staff = await currentStaff()
  if (!staff) return null
  // Hiding the controls is for people; the execute API enforces the role itself.
  return <TradeDesk canTrade={roleAtLeast(staff.role, "trader")} />
}
