import { z } from "zod"
import { roleAtLeast } from "@/lib/auth/roles"
import { rememberInBackground } from "@/lib/console/served-quotes"
import { withStaff } from "@/lib/console/with-staff"

// Built once: building a zod object per request was 1.3 % of this route's CPU (npm run bench -- --cpu-prof).
const querySchema = z.object({
  markets: z
    .array(z.string().regex(/^[A-Z0-9]{4,16}$/, "each market is like BTCUSD"))
    .max(64, "at most 64 markets"),
})

// GET /api/quotes?markets=BTCUSD&markets=ETHUSD - held quotes from the shared cache (no markets: every market)
export const GET = withStaff("viewer", async ({ req, staff, runtime }) => {
  const asked = req.nextUrl.searchParams.getAll("markets").flatMap((m) => m.split(",")).filter(Boolean)
  const { markets } = querySchema.parse({ markets: asked })
  const snapshot = await runtime.quotes.get(markets)
  // What may be executed is only what the console served to that person (the limit price's
  // proof). Written off this request: a slow or hung database never holds the quotes back,
  // and an order on one still being written waits for its write (lib/console/served-quotes.ts).
  if (roleAtLeast(staff.role, "trader")) rememberInBackground(runtime.db, staff, snapshot.quotes)
  return Response.json({
    items: snapshot.quotes,
    markets: snapshot.markets,
    fetched_at: new Date(snapshot.fetchedAt).toISOString(),
    stale: snapshot.stale,
  })
})
