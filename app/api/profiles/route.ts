import { consoleRuntime } from "@/lib/console/runtime"
import { withStaff } from "@/lib/console/with-staff"

// GET /api/profiles - the service's profiles
export const GET = withStaff("viewer", async () => {
  const { upstream } = await consoleRuntime()
  return Response.json(await upstream.listProfiles())
})
