import { staffRef } from "@/lib/auth/staff-ref"
import { pathParams } from "@/lib/console/http"
import { removeChannel } from "@/lib/console/notify/inbox"
import { withStaff } from "@/lib/console/with-staff"
import { log } from "@/lib/log"
import { notFound } from "@/lib/problem"
import { isUuid } from "@/lib/schemas/common"

// DELETE /api/admin/notification-channels/{id} - remove a team channel (its deliveries still due are parked)
export const DELETE = withStaff<{ id: string }>("admin", async ({ params, runtime, staff }) => {
  const { id } = pathParams(params, "id")
  if (!isUuid(id)) throw notFound(`No team channel ${id}.`)
  await removeChannel(runtime.db, id)
  log.info("notify.channel_removed", { channel: id, by: staffRef(staff.email) })
  return Response.json({ id, removed: true })
})
