import { recordIntentStories } from "@/lib/console/intent-story"
import { withStaff } from "@/lib/console/with-staff"
import { intentsQuerySchema } from "@/lib/schemas/search"

// GET /api/intents?record_id= - the console's intents behind one record (empty: the console did not place it)
export const GET = withStaff("support", async ({ query, runtime }) => {
  const { record_id: recordId } = intentsQuerySchema.parse(query)
  return Response.json({ items: await recordIntentStories(runtime.db, recordId) })
})
