import "server-only"
import { sandboxDepositSchema } from "@/lib/schemas/sandbox-tools"
import { SANDBOX_FIAT_DEPOSIT_SCOPE, sandboxFiatDepositSchema } from "@/lib/schemas/events-transfers"
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

/** /sandbox/v2/sandbox/fiat-deposits (scope transfer:write_sandbox_fiat_deposit) */
export function fiatDepositRoutes(s: SandboxServices, m: Middleware) {
  // POST /sandbox/v2/sandbox/fiat-deposits - a test fiat deposit to the profile whose memo is `memo_id` (its id)
  return router().post("/", m.scope(SANDBOX_FIAT_DEPOSIT_SCOPE), async (c) => {
    const input = parseOrThrow(sandboxFiatDepositSchema, await readJsonObject(c.req.raw))
    return json(c, await s.deposits.createFiat(c.get("principal").clientId, input))
  })
}
