import "server-only"
import {
  ORCHESTRATION_LIST_FILTERS,
  type OrchestrationListQuery,
  orchestrationCreateSchema,
  orchestrationListQuerySchema,
} from "@/lib/schemas/orchestration"
import { type Middleware, type SandboxServices, json, router } from "@/lib/sandbox/routes/context"
import { listParam, parseOrThrow, queryFor, readJsonObject } from "@/lib/sandbox/validation"

/** What a failed orchestration says when a fault rule failed it. */
export const INJECTED_FAIL_DETAIL = "injected fault: the destination transfer failed"

/** /sandbox/v2/orchestration/orchestrations */
export function orchestrationRoutes(s: SandboxServices, m: Middleware) {
  const read = m.scope("orchestration:read_orchestration")
  const write = m.scope("orchestration:write_orchestration")
  return (
    router()
      // POST /sandbox/v2/orchestration/orchestrations - create an orchestration (profile to profile)
      .post("/", write, m.fault("create_orchestration"), async (c) => {
        const input = parseOrThrow(orchestrationCreateSchema, await readJsonObject(c.req.raw))
        const failDetail = c.get("failProcessing") === true ? INJECTED_FAIL_DETAIL : null
        const record = await s.orchestrations.create(c.get("principal").clientId, input, failDetail)
        await m.stored(c)
        return json(c, record)
      })
      // GET /sandbox/v2/orchestration/orchestrations - list with filters and cursor paging
      .get("/", read, m.fault("list"), async (c) => {
        const url = new URL(c.req.url)
        const query: OrchestrationListQuery = parseOrThrow(
          orchestrationListQuerySchema,
          queryFor(url, Object.keys(orchestrationListQuerySchema.shape)),
        )
        for (const name of ORCHESTRATION_LIST_FILTERS) {
          const values = listParam(url, name)
          if (values.length > 0) query[name] = values
        }
        return json(c, await s.orchestrations.list(c.get("principal").clientId, query))
      })
      // GET /sandbox/v2/orchestration/orchestrations/{id} - one orchestration
      .get("/:id", read, m.fault("get"), async (c) => json(c, await s.orchestrations.get(c.get("principal").clientId, c.req.param("id"))))
  )
}
