import { readJson } from "@/lib/console/http"
import { addChannel, listChannels } from "@/lib/console/notify/inbox"
import { withStaff } from "@/lib/console/with-staff"
import { staffRef } from "@/lib/auth/staff-ref"
import { log } from "@/lib/log"
import { channelBodySchema } from "@/lib/schemas/notify"

// GET /api/admin/notification-channels - the team channels (chat, signed webhook) and the kinds each carries; URLs as scheme and host only, secrets never
export const GET = withStaff("admin", async ({ runtime }) => {
  return Response.json({ items: await listChannels(runtime.db) })
})

// POST /api/admin/notification-channels - add one: {name, type: chat|webhook, url, secret? (webhook: whsec_…), kinds}
export const POST = withStaff("admin", async ({ req, runtime, staff }) => {
  const body = channelBodySchema.parse(await readJson(req))
  const channel = await addChannel(runtime.db, staff.email, body)
  log.info("notify.channel_added", { channel: channel.id, type: channel.type, by: staffRef(staff.email) })
  return Response.json(channel, { status: 201 })
})
