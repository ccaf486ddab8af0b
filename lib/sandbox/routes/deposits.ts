import "server-only"
import { sandboxDepositSchema } from "@/lib/schemas/sandbox-tools"
import { type Middleware, type SandboxServices, json, router } from "@/lib/sandbox/routes/context"
import { parseOrThrow, readJsonObject } from "@/lib/sandbox/validation"

/** /sandbox/v2/sandbox/profiles/{profile_id}/deposit */
export function depositRoutes(s: SandboxServices, m: Middleware) {
  // POST /sandbox/v2/sandbox/profiles/{profile_id}/deposit - fund a profile
  return router().post("/", m.scope("funding:read_profile"), async (c) => {
    const input = parseOrThrow(sandboxDepositSchema, await readJsonObject(c.req.raw))
    return json(c, await s.deposits.create(c.get("principal").clientId, c.req.param("profileId") ?? "", input))
  })
}
