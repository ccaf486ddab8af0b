import { getIntentStory } from "@/lib/console/intent-story"
import { pathParams } from "@/lib/console/http"
import { withStaff } from "@/lib/console/with-staff"

// GET /api/intents/{id} - one console intent: who, when, attempts, outcome, the request as sent, its approval
export const GET = withStaff<{ id: string }>("support", async ({ params, runtime }) => {
  const { id } = pathParams(params, "id")
  return Response.json(await getIntentStory(runtime.db, id))
})
