import "server-only"
import { sql } from "drizzle-orm"
import type { ConsoleRuntime } from "@/lib/console/runtime"
import { queryRows } from "@/lib/db/rows"
import { registerMetricSource } from "@/lib/metrics"

/** Wires the gauges whose truth is in the database, the quote feed and the limiter. */
export function registerConsoleMetrics(runtime: Pick<ConsoleRuntime, "db" | "quotes" | "limiter">): void {
  registerMetricSource("intents", async () => {
    const rows = await queryRows<{ state: string; n: string | number; oldest: string | Date | null }>(
      runtime.db,
      sql`select state, count(*) as n,
            min(created_at) filter (where state in ('PENDING', 'UNKNOWN')) as oldest
          from console_intents group by state`,
    )
    const byState: Record<string, number> = {}
    let oldest: Date | null = null
    for (const row of rows) {
      byState[row.state] = Number(row.n)
      if (row.oldest !== null) {
        const at = new Date(row.oldest)
        if (!oldest || at < oldest) oldest = at
      }
    }
    return { byState, oldestUnresolvedAt: oldest }
  })
  registerMetricSource("quoteAge", () => runtime.quotes.status())
  registerMetricSource("limiterShared", () => runtime.limiter.status().mode === "shared")
}
