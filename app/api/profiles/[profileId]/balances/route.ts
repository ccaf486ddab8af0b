import { pathParams } from "@/lib/console/http"
import { consoleRuntime } from "@/lib/console/runtime"
import { withStaff } from "@/lib/console/with-staff"

// GET /api/profiles/{profileId}/balances - a profile's balances
export const GET = withStaff<{ profileId: string }>("viewer", async ({ params }) => {
  const { profileId } = pathParams(params, "profileId")
  const { upstream } = await consoleRuntime()
  return Response.json({ items: await upstream.listBalances(profileId) })
})
