import { z } from "zod"
import { pathParams } from "@/lib/console/http"
import { withStaff } from "@/lib/console/with-staff"
import { chartRangeSchema } from "@/lib/schemas/market-data"
import { marketSchema } from "@/lib/schemas/records"

const querySchema = z.object({ market: marketSchema, range: chartRangeSchema })

// GET /api/markets/{market}/history?range=24h - a chart range's prices, from the shared cache
export const GET = withStaff<{ market: string }>("viewer", async ({ params, query, runtime }) => {
  const { market, range } = querySchema.parse({ market: pathParams(params, "market").market, range: query.range })
  const snapshot = await runtime.marketData.history(market, range)
  return Response.json({ market, range, items: snapshot.items, fetched_at: new Date(snapshot.fetchedAt).toISOString(), stale: snapshot.stale })
})
