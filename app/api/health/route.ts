import { sql } from "drizzle-orm"
import { database } from "@/lib/console/database"
import { unprocessedEvents } from "@/lib/console/metrics-sources"
import { consoleRuntime } from "@/lib/console/runtime"
import { env } from "@/lib/env"

export const dynamic = "force-dynamic"

// GET /api/health - liveness for load balancers; no session, nothing secret
export async function GET(): Promise<Response> {
  let databaseStatus = "ok"
  try {
    const { db } = await database()
    await db.execute(sql`select 1`)
  } catch {
    databaseStatus = "unavailable"
  }
  // shared: the service's rate limits are counted for all instances in the database;
  // solo: on PGlite this is the only instance there can be, and it counts them itself;
  // local: this instance cannot reach the database and keeps to its own 1/N share meanwhile.
  let limiter = "local"
  // The event reader: whether this instance reads, how far behind the newest event read is (now − its created_at),
  // and whether nobody has read the events for EVENTS_STALE_MS (behind: degraded, but still ready; see docs/production.md).
  let events: Record<string, unknown> | "off" | "unknown" = "unknown"
  let eventsBehind = false
  if (databaseStatus === "ok") {
    try {
      const runtime = await consoleRuntime()
      limiter = runtime.limiter.status().mode
      if (runtime.events) {
        await runtime.events.refreshLag()
        const status = runtime.events.status()
        eventsBehind = status.behind
        events = {
          reader: status.reader,
          lag_seconds: status.lagSeconds,
          last_read_seconds: status.lastReadSeconds,
          behind: status.behind,
          ...(await unprocessedEvents(runtime.db)),
        }
      } else events = "off"
    } catch {
      limiter = "local"
    }
  }
  const status = databaseStatus === "ok" && (limiter === "shared" || limiter === "solo") && !eventsBehind ? "ok" : "degraded"
  return Response.json(
    { status, mode: env().mode === "sandbox" ? "sandbox" : "upstream", database: databaseStatus, limiter, events },
    { status: status === "ok" ? 200 : 503, headers: { "cache-control": "no-store" } },
  )
}
