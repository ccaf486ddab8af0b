import { staffRef } from "@/lib/auth/staff-ref"
import { readJson } from "@/lib/console/http"
import { LARGE_ORDER_TARGET, readNotifySettings, refusedSettingsChange, saveNotifySettings } from "@/lib/console/notify/settings"
import { withStaff } from "@/lib/console/with-staff"
import { log } from "@/lib/log"
import { notifySettingsBodySchema } from "@/lib/schemas/notify"

// GET /api/admin/notification-settings - the team's notification settings: large_order, the size per currency at or over which an order notifies the admins
export const GET = withStaff("admin", async ({ runtime }) => {
  return Response.json(await readNotifySettings(runtime.db))
})

// PUT /api/admin/notification-settings - replace them: {large_order: {USD?: "50000.00", EUR?: …, SGD?: …}}; on the audit trail with before and after, a refused body too
export const PUT = withStaff("admin", async ({ req, runtime, staff }) => {
  const refuse = (body: unknown, error: unknown) => refusedSettingsChange(runtime.db, staff, { target: LARGE_ORDER_TARGET, change: "large_order", body }, error)
  let raw: unknown
  try {
    raw = await readJson(req)
  } catch (error) {
    throw await refuse(null, error)
  }
  const parsed = notifySettingsBodySchema.safeParse(raw)
  if (!parsed.success) throw await refuse(raw, parsed.error)
  const saved = await saveNotifySettings(runtime.db, staff, parsed.data)
  log.info("notify.settings_saved", { by: staffRef(staff.email) })
  return Response.json(saved)
})
