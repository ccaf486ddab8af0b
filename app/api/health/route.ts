import { sql } from "drizzle-orm"
import { database } from "@/lib/console/database"
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
  if (databaseStatus === "ok") {
    try {
      limiter = (await consoleRuntime()).limiter.status().mode
    } catch {
      limiter = "local"
    }
  }
  const status = databaseStatus === "ok" && (limiter === "shared" || limiter === "solo") ? "ok" : "degraded"
  return Response.json(
    { status, mode: env().mode === "sandbox" ? "sandbox" : "upstream", database: databaseStatus, limiter },
    { status: status === "ok" ? 200 : 503, headers: { "cache-control": "no-store" } },
  )
}
