import { withStaff } from "@/lib/console/with-staff"

// GET /api/markets/prices - current and 24-hours-ago prices of the USD markets, from the shared cache
export const GET = withStaff("viewer", async ({ runtime }) => {
  const snapshot = await runtime.marketData.prices()
  return Response.json({ items: snapshot.items, fetched_at: new Date(snapshot.fetchedAt).toISOString(), stale: snapshot.stale })
})
