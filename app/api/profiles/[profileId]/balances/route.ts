import { pathParams } from "@/lib/console/http"
import { withStaff } from "@/lib/console/with-staff"

// GET /api/profiles/{profileId}/balances - a profile's balances
export const GET = withStaff<{ profileId: string }>("viewer", async ({ params, runtime }) => {
  const { profileId } = pathParams(params, "profileId")
  return Response.json({ items: await runtime.upstream.listBalances(profileId) })
})
