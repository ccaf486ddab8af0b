import { withStaff } from "@/lib/console/with-staff"

// GET /api/markets/prices - current and 24-hours-ago prices of the USD markets, and each
// market's tick_rate (the decimals its prices are shown with), from the shared cache
export const GET = withStaff("viewer", async ({ runtime }) => {
  const [snapshot, tickRates] = await Promise.all([runtime.marketData.prices(), runtime.marketData.tickRates()])
  return Response.json({ items: snapshot.items, tick_rates: tickRates, fetched_at: new Date(snapshot.fetchedAt).toISOString(), stale: snapshot.stale })
})
