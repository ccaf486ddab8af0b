// The service's and the console's answers, as far as the benchmarks read them. On their own:
// options.ts loads scale.ts, and scale.ts must not load what loads options.ts (context.ts).
import { z } from "zod"

export const profilesSchema = z.object({ items: z.array(z.object({ id: z.string(), nickname: z.string() })) })
export const quotesSchema = z.object({ items: z.array(z.object({ id: z.string(), side: z.string(), expires_at: z.string() })) })
export const recordSchema = z.object({ id: z.string() })
