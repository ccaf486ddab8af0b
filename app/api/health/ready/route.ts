import { readiness } from "@/lib/console/readiness"

export const dynamic = "force-dynamic"

// GET /api/health/ready - readiness: database within its deadline, migrations applied, a
// service token held or obtainable, the database's leases in use; 503 otherwise, or while
// shutting down. Answers within 3 s whatever hangs; no session, nothing secret.
export async function GET(): Promise<Response> {
  const answer = await readiness()
  return Response.json(
    { status: answer.ready ? "ready" : "not_ready", ...answer },
    { status: answer.ready ? 200 : 503, headers: { "cache-control": "no-store" } },
  )
}
