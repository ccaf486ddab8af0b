import { staffRef } from "@/lib/auth/staff-ref"
import { readJson } from "@/lib/console/http"
import { listChannels } from "@/lib/console/notify/inbox"
import { addTeamChannel, refusedSettingsChange } from "@/lib/console/notify/settings"
import { withStaff } from "@/lib/console/with-staff"
import { log } from "@/lib/log"
import { channelBodySchema } from "@/lib/schemas/notify"

// GET /api/admin/notification-channels - the team channels (chat, signed webhook) and the kinds each carries; URLs as scheme and host only, secrets never
export const GET = withStaff("admin", async ({ runtime }) => {
  return Response.json({ items: await listChannels(runtime.db) })
})

// POST /api/admin/notification-channels - add one: {name, type: chat|webhook, url, secret? (webhook: whsec_…), kinds}; on the audit trail (URL as a hint, never the secret), a refused one too
export const POST = withStaff("admin", async ({ req, runtime, staff }) => {
  const refuse = (body: unknown, error: unknown) => refusedSettingsChange(runtime.db, staff, { target: "new_channel", change: "channel_add", body }, error)
  let raw: unknown
  try {
    raw = await readJson(req)
  } catch (error) {
    throw await refuse(null, error)
  }
  const parsed = channelBodySchema.safeParse(raw)
  if (!parsed.success) throw await refuse(raw, parsed.error)
  const channel = await addTeamChannel(runtime.db, staff, parsed.data)
  log.info("notify.channel_added", { channel: channel.id, type: channel.type, by: staffRef(staff.email) })
  return Response.json(channel, { status: 201 })
})
