import "server-only"
import { EVENTS_SCOPE, eventListQuerySchema } from "@/lib/schemas/events-transfers"
import { type Middleware, type SandboxServices, json, router } from "@/lib/sandbox/routes/context"
import { parseOrThrow, queryFor } from "@/lib/sandbox/validation"

/** /sandbox/v2/events (scope events:read_event) */
export function eventRoutes(s: SandboxServices, m: Middleware) {
  const read = m.scope(EVENTS_SCOPE)
  return (
    router()
      // GET /sandbox/v2/events - ascending by created_at by default, with filters and cursor paging
      .get("/", read, m.fault("list"), async (c) => {
        const query = parseOrThrow(eventListQuerySchema, queryFor(new URL(c.req.url), Object.keys(eventListQuerySchema.shape)))
        return json(c, await s.events.list(c.get("principal").clientId, query))
      })
      // GET /sandbox/v2/events/{id} - one event
      .get("/:id", read, m.fault("get"), async (c) => {
        const isTest = new URL(c.req.url).searchParams.get("is_test") === "true"
        return json(c, await s.events.get(c.get("principal").clientId, c.req.param("id"), isTest))
      })
  )
}
