import { z } from "zod"
import { quoteSchema } from "@/lib/schemas/records"

/** GET /api/quotes: the held quotes from the console's cache, when they were fetched, and whether they are stale. */
export const quoteSnapshotSchema = z.object({
  items: z.array(quoteSchema),
  markets: z.array(z.string()),
  fetched_at: z.string(),
  stale: z.boolean(),
})
