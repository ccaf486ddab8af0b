import { buildOverview } from "@/lib/console/overview"
import { withStaff } from "@/lib/console/with-staff"

// GET /api/overview - holdings valued at current mids, 24-hour changes, today's activity, the live feed
export const GET = withStaff("viewer", async ({ staff, runtime }) =>
  Response.json(
    await buildOverview({ db: runtime.db, staff, source: runtime.overview, quotes: runtime.quotes, marketData: runtime.marketData }),
  ),
)
