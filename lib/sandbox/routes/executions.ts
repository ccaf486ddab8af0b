import "server-only"
import { quoteExecutionCreateSchema, quoteExecutionListQuerySchema } from "@/lib/schemas/quote-execution"
import { type Middleware, type SandboxServices, json, router } from "@/lib/sandbox/routes/context"
import { parseOrThrow, queryFor, readJsonObject } from "@/lib/sandbox/validation"

/** /sandbox/v2/profiles/{profile_id}/quote-executions */
export function executionRoutes(s: SandboxServices, m: Middleware) {
  const read = m.scope("exchange:read_quote_execution")
  return (
    router()
      // POST /sandbox/v2/profiles/{profile_id}/quote-executions - execute a held quote
      .post("/", m.scope("exchange:write_quote_execution"), m.fault("create_execution"), async (c) => {
        const input = parseOrThrow(quoteExecutionCreateSchema, await readJsonObject(c.req.raw))
        const { record } = await s.executions.create(c.get("principal").clientId, c.req.param("profileId") ?? "", input)
        await m.stored(c)
        return json(c, record)
      })
      // GET /sandbox/v2/profiles/{profile_id}/quote-executions - list with filters and cursor paging
      .get("/", read, m.fault("list"), async (c) => {
        const raw = queryFor(new URL(c.req.url), Object.keys(quoteExecutionListQuerySchema.shape))
        return json(c, await s.executions.list(c.req.param("profileId") ?? "", parseOrThrow(quoteExecutionListQuerySchema, raw)))
      })
      // GET /sandbox/v2/profiles/{profile_id}/quote-executions/{id} - one execution
      .get("/:id", read, m.fault("get"), async (c) => json(c, await s.executions.get(c.req.param("profileId") ?? "", c.req.param("id"))))
  )
}
