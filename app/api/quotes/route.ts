import { z } from "zod"
import { withStaff } from "@/lib/console/with-staff"

const marketsSchema = z
  .array(z.string().regex(/^[A-Z0-9]{4,16}$/, "each market is like BTCUSD"))
  .max(64, "at most 64 markets")

// GET /api/quotes?markets=BTCUSD&markets=ETHUSD - held quotes from the shared cache (no markets: every market)
export const GET = withStaff("viewer", async ({ req, runtime }) => {
  const asked = req.nextUrl.searchParams.getAll("markets").flatMap((m) => m.split(",")).filter(Boolean)
  const markets = z.object({ markets: marketsSchema }).parse({ markets: asked }).markets
  const snapshot = await runtime.quotes.get(markets)
  return Response.json({
    items: snapshot.quotes,
    markets: snapshot.markets,
    fetched_at: new Date(snapshot.fetchedAt).toISOString(),
    stale: snapshot.stale,
  })
})
