import { sql } from "drizzle-orm"
import { database } from "@/lib/console/database"
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
  const status = databaseStatus === "ok" ? "ok" : "degraded"
  return Response.json(
    { status, mode: env().mode === "sandbox" ? "sandbox" : "upstream", database: databaseStatus },
    { status: status === "ok" ? 200 : 503, headers: { "cache-control": "no-store" } },
  )
}
