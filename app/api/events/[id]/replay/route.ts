import { z } from "zod"
import { eventLogEntry } from "@/lib/console/event-log"
import { recordEventReplay } from "@/lib/console/intents"
import { withStaff } from "@/lib/console/with-staff"
import { log } from "@/lib/log"
import { notFound, stateConflict } from "@/lib/problem"

const paramsSchema = z.object({ id: z.string().trim().min(1, "is required").max(200, "at most 200 characters") })

// POST /api/events/{id}/replay - processes one recorded event again (what it applied is not applied twice); audited
export const POST = withStaff<{ id: string }>("admin", async ({ params, staff, runtime }) => {
  const { id } = paramsSchema.parse(params)
  if (!runtime.events) throw stateConflict("The event reader is off (EVENTS_POLL_MS=0): nothing can be replayed.")
  const replayed = await runtime.events.replay(id)
  if (!replayed) throw notFound(`No event ${id} was read by the console.`)
  const { row, error } = replayed
  await recordEventReplay(runtime.db, staff, { eventId: row.id, type: row.type, status: row.status, error }, new Date())
  log.info("events.replayed", { staff: staff.email, eventId: row.id, type: row.type, status: row.status })
  return Response.json(eventLogEntry(row))
})
