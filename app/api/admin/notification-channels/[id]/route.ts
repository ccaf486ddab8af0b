import { staffRef } from "@/lib/auth/staff-ref"
import { pathParams } from "@/lib/console/http"
import { refusedSettingsChange, removeTeamChannel } from "@/lib/console/notify/settings"
import { withStaff } from "@/lib/console/with-staff"
import { log } from "@/lib/log"
import { notFound } from "@/lib/problem"
import { isUuid } from "@/lib/schemas/common"

// DELETE /api/admin/notification-channels/{id} - remove a team channel (its deliveries still due are parked); on the audit trail with what it was, a refused one (no such channel) too
export const DELETE = withStaff<{ id: string }>("admin", async ({ params, runtime, staff }) => {
  const { id } = pathParams(params, "id")
  try {
    if (!isUuid(id)) throw notFound(`No team channel ${id}.`)
    await removeTeamChannel(runtime.db, staff, id)
  } catch (error) {
    throw await refusedSettingsChange(runtime.db, staff, { target: id, change: "channel_remove", body: null }, error)
  }
  log.info("notify.channel_removed", { channel: id, by: staffRef(staff.email) })
  return Response.json({ id, removed: true })
})
