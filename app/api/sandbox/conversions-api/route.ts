import { currentConversionsApi, switchConversionsApi } from "@/lib/console/conversions-api"
import { readJson } from "@/lib/console/http"
import { requireSandboxMode } from "@/lib/console/sandbox-tools"
import { withStaff } from "@/lib/console/with-staff"
import { env } from "@/lib/env"
import { type ConversionsApiState, conversionsApiSwitchSchema } from "@/lib/schemas/sandbox-tools"

// GET /api/sandbox/conversions-api - the conversion API the desk uses now, and the configured one
export const GET = withStaff("admin", async ({ runtime }) => {
  requireSandboxMode()
  const state: ConversionsApiState = { api: await currentConversionsApi(runtime.db), configured: env().conversionsApi }
  return Response.json(state)
})

// PUT /api/sandbox/conversions-api - switch it for a demo (every instance follows; balances stay)
export const PUT = withStaff("admin", async ({ req, staff, runtime }) => {
  requireSandboxMode()
  const { api } = conversionsApiSwitchSchema.parse(await readJson(req))
  const state: ConversionsApiState = { api: await switchConversionsApi(runtime.db, staff, api), configured: env().conversionsApi }
  return Response.json(state)
})
