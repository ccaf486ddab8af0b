import "server-only"
import { sql } from "drizzle-orm"
import type { EventReader } from "@/lib/console/event-reader"
import type { QuoteSource } from "@/lib/console/quote-feed"
import type { SharedLimiter } from "@/lib/console/shared-limiter"
import type { Db } from "@/lib/db/client"
import { queryRows } from "@/lib/db/rows"
import { SESSION_ABSOLUTE_S, sessionIdleS } from "@/lib/auth/sessions"
import { registerMetricSource, registerSessionMetrics } from "@/lib/metrics"

/** Wires the gauges whose truth is in the database, the quote feed and the limiter. */
export function registerConsoleMetrics(runtime: {
  db: Db
  quotes: Pick<QuoteSource, "status">
  limiter: Pick<SharedLimiter, "status">
  events?: Pick<EventReader, "status" | "refreshLag"> | null
}): void {
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
  registerMetricSource("limiterShared", () => runtime.limiter.status().mode !== "local")
  const events = runtime.events
  if (events) {
    registerMetricSource("eventReader", async () => {
      await events.refreshLag()
      return { ...events.status(), ...(await unprocessedEvents(runtime.db)) }
    })
  }
  // Counted in the shared tables, so every instance reports the same numbers.
  registerSessionMetrics({
    activeSessions: async () => {
      const [row] = await queryRows<{ n: string | number }>(
        runtime.db,
        sql`select count(*) as n from console_sessions
            where last_seen_at > now() - make_interval(secs => ${sessionIdleS()})
              and created_at > now() - make_interval(secs => ${SESSION_ABSOLUTE_S})`,
      )
      return Number(row?.n ?? 0)
    },
    signInFailures: async () => {
      const [row] = await queryRows<{ n: string | number }>(runtime.db, sql`select count(*) as n from console_auth_events where kind = 'sign_in_failed'`)
      return Number(row?.n ?? 0)
    },
  })
}

/** Events whose processing failed: waiting for a retry, and parked (shared: every instance counts the same). */
export async function unprocessedEvents(db: Db): Promise<{ retrying: number; parked: number }> {
  const rows = await queryRows<{ status: string; n: string | number }>(
    db,
    sql`select status, count(*) as n from console_events where status in ('retrying', 'parked') group by status`,
  )
  const of = (status: string) => Number(rows.find((r) => r.status === status)?.n ?? 0)
  return { retrying: of("retrying"), parked: of("parked") }
}
