export const dynamic = "force-dynamic"

// GET /api/health/live - liveness: the process answers. Touches nothing (no database, no service).
export function GET(): Response {
  return Response.json({ status: "live" }, { headers: { "cache-control": "no-store" } })
}
